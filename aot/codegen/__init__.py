"""Code generation: the static C translation unit (aot.codegen.c) and its kernel renderers."""
