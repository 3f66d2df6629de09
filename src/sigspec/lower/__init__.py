"""The lowering stage: the checked IR → the views every target consumes (`lower/views.py`):
names per target language, schemas, provider fragments, prompts and runtime descriptors,
each computed once. Kept empty: the configuration reads the provider registry below this
package without loading the rest."""
