"""A team's tool: run a model behind any OpenAI-compatible chat endpoint on a benchmark's public
question list and write the file the leaderboard scores.

It reads only public files, the question list and the images, and asks what the benchmark's declaration
says (its family's protocol); it imports nothing of the app, only the kit (the declarations and the
answer reader, the same rule the site reads ``response`` with, to pick the image a two-stage
benchmark's stage 2 grounds in: the one the model chose, never the gold one, which it cannot know).

    python -m scoring.harness.runner scb --questions questions.jsonl --images images/ \\
        --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-VL-7B-Instruct \\
        --grounding-format qwen2_5_vl --out predictions.jsonl
"""
