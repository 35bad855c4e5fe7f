"""Declarations are checked when built (a programmer's mistake fails at import, with a clear
message) and unknown names raise one error type that lists the known ones."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scoring.benchmarks import (
    BENCHMARKS,
    DeclarationError,
    Heatmap,
    Metric,
    Panel,
    Scatter,
    Stat,
    UnknownName,
    get_benchmark,
    load_plugins,
    register,
    unregister,
)

KV = get_benchmark("kviscuit")
SCB = get_benchmark("scb")


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"primary_metric": "accuracy"}, "primary_metric 'accuracy' is not a declared metric; declared: acc"),
        ({"overview": (Panel("acc", by="country"),)}, "unknown groupings ['country']"),
        ({"overview": (Panel("acc", overall=False),)}, "shows nothing"),
        ({"plots": (Scatter(x="miou", y="acc"),)}, "unknown metrics ['miou']"),
        ({"plots": (Heatmap("region"),)}, "unknown groupings ['region']"),
        ({"view_metrics": ("f1",)}, "unknown metrics ['f1']"),
        ({"metrics": (*KV.metrics, *KV.metrics)}, "each name once"),
        ({"metrics": (*KV.metrics, SCB.metric("miou"))}, "declares no overlap"),
        ({"choices": "ABCA"}, "distinct capital letters"),
        ({"choices": "abcd"}, "distinct capital letters"),
        ({"choices": "A"}, "distinct capital letters"),
        ({"id": "K Viscuit"}, "benchmark id"),
    ],
)
def test_a_misdeclared_benchmark_fails_when_built(change: dict, says: str) -> None:
    with pytest.raises(DeclarationError, match="kviscuit|benchmark id") as e:
        replace(KV, **change)
    assert says in str(e.value)


def test_a_metric_is_checked_too() -> None:
    with pytest.raises(DeclarationError, match="lower-case"):
        Metric("Acc", "Accuracy", "", Stat.CORRECT, Stat.QUESTIONS)
    with pytest.raises(DeclarationError, match="Stat columns"):
        Metric("acc", "Accuracy", "", "correct", Stat.QUESTIONS)  # type: ignore[arg-type]
    with pytest.raises(DeclarationError, match="clashes"):
        replace(KV.groupings[0], name="overall")


def test_unknown_names_raise_one_error_that_lists_the_known_ones() -> None:
    for lookup, known in (
        (lambda: get_benchmark("nope"), list(BENCHMARKS)),
        (lambda: SCB.grouping("continent"), ["type", "country", "category"]),
        (lambda: SCB.metric("f1"), ["acc", "miou", "gacc50", "ciou"]),
    ):
        with pytest.raises(UnknownName) as e:
            lookup()
        assert isinstance(e.value, KeyError) and isinstance(e.value, ValueError)
        assert e.value.known == tuple(known) and str(e.value).endswith("known: " + ", ".join(known))


def test_register_is_idempotent_and_refuses_a_second_declaration_under_a_taken_id() -> None:
    assert register(SCB) is SCB
    with pytest.raises(DeclarationError, match="already registered"):
        register(replace(SCB, name="another SCB"))
    other = register(replace(KV, id="kv_copy"))
    try:
        assert list(BENCHMARKS)[-1] == "kv_copy" and get_benchmark("kv_copy") is other
    finally:
        unregister("kv_copy")
    assert "kv_copy" not in BENCHMARKS
    with pytest.raises(UnknownName):
        unregister("kv_copy")


def test_a_missing_plugin_module_is_a_clear_error() -> None:
    with pytest.raises(DeclarationError, match="benchmark plugin 'no_such_plugin_module' could not be imported"):
        load_plugins(["no_such_plugin_module"])


def test_the_built_in_declarations() -> None:
    assert (SCB.choices, KV.choices) == ("ABCD", "ABCD")
    assert SCB.primary.higher_is_better and SCB.metric("miou").needs_grounding and not SCB.primary.needs_grounding
    assert [m.ci for m in SCB.metrics] == ["acc_ci", "miou_ci", None, None]
    assert KV.view_metrics == ("acc",) and SCB.view_metrics == ("acc", "miou")
    assert SCB.example_line({"question_id": "scb-1", "type": 1}) == {
        "question_id": "scb-1", "answer": "A", "bbox": [250, 250, 750, 750], "bbox_format": "xyxy_1000",
    }  # fmt: skip
    assert KV.example_line({"question_id": 3, "category": "Food"}) == {"question_id": 3, "answer": "A"}


def test_a_logged_prompt_is_recognised_by_the_family_of_the_benchmark_that_asked_it() -> None:
    """A harness's logged prompt names its benchmark and stage through the declarations, not a list
    of two: a third benchmark with its own instruction is recognised as itself."""
    from scoring.benchmarks import Asked, asked, protocol
    from scoring.benchmarks.families import MultipleChoice

    stage1 = protocol.text_of(protocol.pick_image("Which image shows a hanbok?"))[-1]
    stage2 = protocol.text_of(protocol.ground_chosen("Locate the hanbok.", "qwen2_5_vl", 0))[-1]
    choice = protocol.multiple_choice_prompt("What is it?", ["a", "b", "c", "d"])
    cvqa = replace(KV, id="cvqa_like", family=MultipleChoice(instruction="Reply with one letter, A to D."))
    own = protocol.multiple_choice_prompt("What is it?", ["a", "b", "c", "d"], instruction=cvqa.family.instruction)
    assert asked(own) is None  # not registered: no benchmark asks it
    register(cvqa)
    try:
        assert asked(stage1) == Asked("scb", "stage1")
        assert asked(stage2) == Asked("scb", "stage2", "qwen2_5_vl")
        assert asked("Locate the artifact in the image.") == Asked("scb", "stage2")
        assert asked(choice) == Asked("kviscuit", "answer")
        assert asked(own) == Asked("cvqa_like", "answer")
        assert asked("Describe the image.") is None
    finally:
        unregister("cvqa_like")
