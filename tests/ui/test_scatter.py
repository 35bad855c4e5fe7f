"""The labelled scatter: labels never overlap each other, stay inside the plot, and higher ranks choose first."""

from __future__ import annotations

from ui.scatter import CHAR_WIDTH, NARROW, WIDE, Point, place_labels, scatter_html


def boxes(points, canvas):
    out = []
    for label in place_labels(points, canvas):
        if label is not None:
            left, baseline, text = label
            top = baseline - canvas.font * 0.9
            out.append((left, top, left + len(text) * canvas.font * CHAR_WIDTH, top + canvas.font * 1.15))
    return out


def test_labels_do_not_overlap_and_crowded_points_keep_their_hover():
    crowd = [Point(f"Model-{i}", "t", "scored here", 50 + i * 0.3, 50 + i * 0.2, False) for i in range(12)]
    for canvas in (WIDE, NARROW):
        placed = boxes(crowd, canvas)
        assert 2 <= len(placed) < len(crowd)  # a crowd cannot all be labelled
        for i, a in enumerate(placed):
            left, top, right, bottom = canvas.area
            assert a[0] >= left and a[2] <= right + 4
            assert all(not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]) for b in placed[i + 1 :])
        assert place_labels(crowd, canvas)[0] is not None  # the best-ranked point is labelled
    html = scatter_html(crowd, "mIoU", "Accuracy", ("scored here", "reported in paper"))
    assert html.count("<title>") == 2 * len(crowd)  # every point has its hover text in both layouts
    assert "of 12 points labelled" in html


def test_long_names_are_shortened_on_the_label_only():
    long = [Point("A-very-long-model-name-that-goes-on-and-on", "t", "scored here", 10, 10, False)]
    html = scatter_html(long, "mIoU", "Accuracy", ("scored here", "reported in paper"))
    assert (
        ">A-very-long-mode…<" in html
        and ">A-very-long-model-name-that-goe…<" in html
        and "<title>A-very-long-model-name-that-goes-on-and-on" in html
    )
    assert scatter_html([], "mIoU", "Accuracy", ("a", "b")) == '<p class="empty-note">No rows to plot.</p>'


def test_every_point_is_a_named_tab_stop_keyed_by_its_row():
    """No hover needed (issue 33): each point is focusable, named with its model, team, figures and
    source, has a wide tap target, and carries its table row's key for the page's filters."""
    points = [Point(f"M-{i}", "Team <b>", "scored here", 10 * i, 5 * i, False, f"row{i}") for i in range(3)]
    html = scatter_html(points, "mIoU", "Accuracy", ("scored here", "reported in paper"))
    for i in range(3):
        name = f"M-{i} (Team &lt;b&gt;, scored here): Accuracy {5 * i:g}, mIoU {10 * i:g}"
        assert html.count(f'data-row="row{i}" tabindex="0" role="button" aria-label="{name}"') == 2  # both layouts
    assert html.count('class="hit"') == 6 and 'role="img"' not in html  # an image's children would be mute
