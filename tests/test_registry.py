"""Every published name resolves in a fresh process that never imported the package."""
import configparser
import json
import subprocess
import sys

from tests.helpers import REPO_ROOT

REGISTRIES = {
    "spacy_factories": "factories",
    "spacy_architectures": "architectures",
    "spacy_scorers": "scorers",
    "spacy_misc": "misc",
    "spacy_cli": "cli",
    "thinc_schedules": "schedules",
}


def published_names():
    parser = configparser.ConfigParser()
    parser.read(REPO_ROOT / "setup.cfg")
    entry_points = parser["options.entry_points"]
    return {
        group: [line.split("=")[0].strip() for line in entry_points[group].strip().splitlines()]
        for group in REGISTRIES
    }


def test_every_published_name_resolves_without_importing_the_package():
    names = published_names()
    assert names["spacy_factories"]
    code = f"""
import json, sys
import spacy
from spacy.util import registry
names = json.loads({json.dumps(json.dumps(names))})
groups = {REGISTRIES!r}
assert "spacy_globalner" not in sys.modules
for group, entries in names.items():
    if group == "spacy_factories":
        continue  # resolved by add_pipe below, through spaCy's entry-point lookup
    table = getattr(registry, groups[group])
    for name in entries:
        assert callable(table.get(name)), name
nlp = spacy.blank("en")
for name in names["spacy_factories"]:
    nlp.add_pipe(name, config={{"spans_key": name}})  # one key each: two on one key are refused
print("ok", len(nlp.pipe_names))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["ok", str(len(names["spacy_factories"]))]


def test_installed_entry_points_match_setup_cfg():
    from importlib.metadata import entry_points

    for group, names in published_names().items():
        installed = {ep.name for ep in entry_points(group=group) if ep.value.startswith("spacy_globalner")}
        assert installed == set(names), f"reinstall the package: {group} differs"
