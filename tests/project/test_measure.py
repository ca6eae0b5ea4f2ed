"""project/scripts/measure.py's side-by-side timing of configs
(docs/shipping.md), on the bundled GENIA slice and small heads."""
import subprocess
import sys

from thinc.api import Config

from spacy_globalner.corpora import convert
from tests.helpers import REPO_ROOT
from tests.helpers.trained_pipelines import GENIA_DEV, GENIA_TRAIN, SMALL_MODELS

SCRIPTS = REPO_ROOT / "project" / "scripts"


def test_predict_speed_times_configs_side_by_side(tmp_path):
    """`measure.py predict-speed` trains each shipped config a little and prints
    one line per config with its words/s and the head's share. In a
    subprocess: it fixes its own torch threads."""
    convert(GENIA_TRAIN, tmp_path / "train.spacy", format="genia", limit=60)
    convert(GENIA_DEV, tmp_path / "dev.spacy", format="genia", limit=20)
    paths = []
    for head in ("global_pointer", "crener"):
        config = Config().from_disk(REPO_ROOT / "configs" / f"{head}.cfg", interpolate=False)
        config["components"][head]["model"].update(SMALL_MODELS[head])
        paths.append(tmp_path / f"{head}.cfg")
        config.to_disk(paths[-1], interpolate=False)
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "measure.py"), "predict-speed", str(tmp_path / "train.spacy"),
         str(tmp_path / "dev.spacy"), *map(str, paths), "--updates", "2", "--docs", "20", "--repeats", "1"],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["global_pointer", "crener"]
    assert all("words/s" in line and "encoder alone" in line and "head adds" in line for line in lines)
