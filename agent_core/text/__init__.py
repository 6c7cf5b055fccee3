"""Words and figures in text, as the engine needs them: the language (Korean or not), number
words read as figures, and the shapes of contact details.

May import: the foundation modules only (``errors``). Anything may import it.
"""
