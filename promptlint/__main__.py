from promptlint.cli import run

run()
