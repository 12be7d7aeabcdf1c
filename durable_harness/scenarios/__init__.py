"""The bundled scenario catalogue (YAML files beside this one)."""
