"""What VLMEvalKit's own dataset machinery builds from the leaderboard's datasets for the first
questions: ``build_prompt`` of SCB stage 1, of stage 2 for every grounding family (on the stage-1
file VLMEvalKit wrote), and of K-Viscuit, as JSON with each image named by its file name. The
leaderboard's tests compare these messages with the runner's, text byte for byte.

usage: python vlmevalkit_prompts.py SCB_TSV KVISCUIT_TSV SCB_STAGE1_PREDICTIONS > prompts.json
(in VLMEvalKit's environment, with vlmevalkit/ importable)
"""

import json
import os.path as osp
import sys

from scoring.protocol import GROUNDING_PRESETS
from vlmevalkit.datasets import KViscuit, ScbStage1, ScbStage2

QUESTIONS = 3


def named(message):
    return [dict(m, value=osp.basename(m["value"])) if m["type"] == "image" else m for m in message]


def main(scb_tsv, kviscuit_tsv, stage1):
    scb = ScbStage1(tsv=scb_tsv)
    out = {"scb_stage1": [named(scb.build_prompt(i)) for i in range(QUESTIONS)], "scb_stage2": {}}
    for family in GROUNDING_PRESETS:
        stage2 = ScbStage2(tsv=scb_tsv, stage1=stage1, grounding_format=family)
        out["scb_stage2"][family] = [
            {"stage1_prediction": stage2.data.iloc[i]["stage1_prediction"], "message": named(stage2.build_prompt(i))}
            for i in range(QUESTIONS)
        ]
    kviscuit = KViscuit(tsv=kviscuit_tsv)
    out["kviscuit"] = [named(kviscuit.build_prompt(i)) for i in range(QUESTIONS)]
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
