"""What VLMEvalKit's own dataset machinery builds from the leaderboard's datasets for the first
questions: ``build_prompt`` of SCB stage 1, of stage 2 for every grounding family (on the stage-1
file VLMEvalKit wrote), and of K-Viscuit, as JSON with each image named by its file name. The
leaderboard's tests compare these messages with the runner's, text byte for byte.

usage: python vlmevalkit_prompts.py SCB_TSV KVISCUIT_TSV SCB_STAGE1_PREDICTIONS > prompts.json
(in VLMEvalKit's environment, with the kit installed: pip install ./scoring[vlmevalkit])
"""

import json
import os.path as osp
import sys

from scoring.benchmarks.protocol import GROUNDING_PRESETS
from scoring.harness.vlmevalkit.datasets import MultipleChoice, TwoStage1, TwoStage2

QUESTIONS = 3


def named(message):
    return [dict(m, value=osp.basename(m["value"])) if m["type"] == "image" else m for m in message]


def main(scb_tsv, kviscuit_tsv, stage1):
    scb = TwoStage1(tsv=scb_tsv, benchmark="scb")
    out = {"scb_stage1": [named(scb.build_prompt(i)) for i in range(QUESTIONS)], "scb_stage2": {}}
    for family in GROUNDING_PRESETS:
        stage2 = TwoStage2(tsv=scb_tsv, benchmark="scb", stage1=stage1, grounding_format=family)
        out["scb_stage2"][family] = [
            {"stage1_prediction": stage2.data.iloc[i]["stage1_prediction"], "message": named(stage2.build_prompt(i))}
            for i in range(QUESTIONS)
        ]
    kviscuit = MultipleChoice(tsv=kviscuit_tsv, benchmark="kviscuit")
    out["kviscuit"] = [named(kviscuit.build_prompt(i)) for i in range(QUESTIONS)]
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
