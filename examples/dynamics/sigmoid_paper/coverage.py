"""The labels of sigmoid.tex no step cites, and why."""
from theorylab.authoring import Account

ACCOUNTS = (Account("(1)", "definition", "the loss defines the model"),
            Account("(2)", "definition", "the gradient flow of (1); steps (3)-(5) use it"))
