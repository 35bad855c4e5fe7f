"""The Gradio web app: one module per tab (see build_app)."""
