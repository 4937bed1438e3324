"""The built-in papers: each a Paper record naming its families' modules (entries here, checks in verify/).

Installed as `theorylab.derivations` and registered through the `theorylab.papers` entry points of theorylab's
pyproject.toml, exactly as an outside paper is; declaring them imports none of their modules.
"""
from theorylab.authoring import Family, Paper

__all__ = ["PTFT_DIAGONAL", "PTFT_RELU", "FEATURES_ARE_FATE", "ADAPTIVE_TANGENT", "PAPERS"]

_D, _V = "theorylab.derivations", "theorylab.verify"


def _family(name: str, proofs: bool = False) -> Family:
    """proofs: the family's DERIVATIONS live in `{name}_proofs`, built only when a command decides or lists steps."""
    return Family(name=name, entries=f"{_D}.{name}", checks=f"{_V}.{name}",
                  derivations=f"{_D}.{name}_proofs" if proofs else None)


PTFT_DIAGONAL = Paper(
    name="ptft-diagonal",
    title="Implicit regularization of multi-task learning and pretraining + finetuning in diagonal linear networks "
          "(appendix: Q-penalty, l1,2 reduction, participation ratio and ENSD)",
    source="000_a994d0e1146a9c4a.txt",
    source_file="sources/000_a994d0e1146a9c4a.txt",
    families=(_family("qpenalty", proofs=True), _family("l12"), _family("measure")),
    coverage=f"{_D}.coverage_000",
    figures=(f"{_V}.figures_000",),
    notation=f"{_D}.notation_000:NOTATION",
)

PTFT_RELU = Paper(
    name="ptft-relu",
    title="The implicit regularization penalty of PT+FT in shallow ReLU networks, via a quartic",
    source="001_47508cf19f540f71.txt",
    source_file="sources/001_47508cf19f540f71.txt",
    families=(_family("relu", proofs=True),),
    coverage=f"{_D}.coverage_001",
    figures=(f"{_V}.figures_001",),
    notation=f"{_D}.notation_001:NOTATION",
)

FEATURES_ARE_FATE = Paper(
    name="features-are-fate",
    title="Features are Fate: a theory of transfer learning in high-dimensional regression",
    source="002_a6e10e5d8d1167fd.txt",
    source_file="sources/002_a6e10e5d8d1167fd.txt",
    families=(_family("transfer"),),
    coverage=f"{_D}.coverage_002",
    figures=(f"{_V}.figures_002",),
    notation=f"{_D}.notation_002:NOTATION",
)

ADAPTIVE_TANGENT = Paper(
    name="adaptive-tangent",
    title="An Adaptive Tangent Feature Perspective of Neural Networks (LeJeune and Alemohammad)",
    source="003_682109963104011b.txt",
    source_file="sources/003_682109963104011b.txt",
    families=(_family("omega"),),
    coverage=f"{_D}.coverage_003",
    figures=(f"{_V}.figures_003",),
    notation=f"{_D}.notation_003:NOTATION",
)

PAPERS = (PTFT_DIAGONAL, PTFT_RELU, FEATURES_ARE_FATE, ADAPTIVE_TANGENT)
