"""slug-reconcile: a draft whose create has an unknown outcome is looked up by the slug its title is
expected to get (lower-case ASCII words joined by dashes). The site decides slugs: a number is a
date archive's (``2026`` becomes ``2026-2``), letters of other scripts are kept, not dropped; so a
job with such a title never finds its draft, and makes a second one."""

from durable_harness.candidates.mutants._registry import register

MUTANT = register("slug-reconcile", slug_is_not_identity=False)
