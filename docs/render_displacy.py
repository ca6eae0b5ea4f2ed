"""Render nested predictions with displaCy's span style, to HTML and a PNG.

    python docs/render_displacy.py [PIPELINE] [--out docs/images/displacy_spans]

PIPELINE defaults to the global_pointer that `spacy project run all project/`
trains on the bundled GENIA slice. The PNG is a screenshot of the HTML taken
with headless Chromium (apt-get install -y chromium).
"""
import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

import spacy
from spacy import displacy

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PIPELINE = REPO / "project" / "training" / "genia" / "global_pointer" / "model-best"
# GENIA dev sentences with nested entities (predicted as in the gold data).
TEXTS = [
    "These data indicate that IL-4 suppresses the induction of transcription "
    "factors in human activated monocytes .",
    "Another LTR size variation was observed in four patients in a region just "
    "upstream of the NF-kappa B enhancer .",
]
COLORS = {"protein": "#7aecec", "DNA": "#bfeeb7", "RNA": "#feca74", "cell_type": "#aa9cfc",
          "cell_line": "#ff9561"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pipeline", nargs="?", default=str(DEFAULT_PIPELINE))
    parser.add_argument("--out", default=str(REPO / "docs" / "images" / "displacy_spans"))
    args = parser.parse_args()
    nlp = spacy.load(args.pipeline)
    key = next(pipe.key for _, pipe in nlp.pipeline if hasattr(pipe, "key"))
    docs = list(nlp.pipe(TEXTS))
    for doc in docs:
        print([(span.text, span.label_) for span in doc.spans[key]])
    html = displacy.render(docs, style="span", page=True,
                           options={"spans_key": key, "colors": COLORS})
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".html").write_text(html, encoding="utf8")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("chromium not found: apt-get install -y chromium")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={profile}", "--window-size=1200,400",
             f"--screenshot={out.with_suffix('.png')}", out.with_suffix(".html").as_uri()],
            check=True, capture_output=True, timeout=120,
        )
    _trim(out.with_suffix(".png"))
    print(f"wrote {out.with_suffix('.png')}")


def _trim(path: Path, margin: int = 16) -> None:
    """Cut the page's white margins off the screenshot (Pillow comes with matplotlib)."""
    try:
        from PIL import Image, ImageChops
    except ImportError:
        return
    image = Image.open(path).convert("RGB")
    box = ImageChops.difference(image, Image.new("RGB", image.size, "white")).getbbox()
    if box:
        left, top, right, bottom = box
        image.crop((max(left - margin, 0), max(top - margin, 0),
                    min(right + margin, image.width), min(bottom + margin, image.height))).save(path)


if __name__ == "__main__":
    main()
