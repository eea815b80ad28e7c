"""Every plot script, run as a user runs it on the fixture run directory, writes a
decodable, non-blank PNG and a PDF; plot_all draws all nine."""
import os

import pytest
from matplotlib import image as mpimg

from conftest import STUDIES, run_script


def check_png(path):
    assert os.path.getsize(path) > 10_000, path
    pixels = mpimg.imread(path)
    height, width = pixels.shape[:2]
    assert pixels.ndim == 3 and pixels.shape[2] in (3, 4)
    # Panels of ~4-7 inches at 150 dpi: hundreds of pixels each way, nothing absurd.
    assert 400 <= width <= 4000 and 300 <= height <= 4000, (width, height)
    rgb = pixels[..., :3]
    assert rgb.var() > 0
    # Drawn content, not a white page with a title: a few percent of the pixels are
    # far from white, and the figure uses colors (not only gray text).
    ink = (rgb.min(axis=2) < 0.6).mean()
    assert ink > 0.01, ink
    saturation = rgb.max(axis=2) - rgb.min(axis=2)
    assert (saturation > 0.3).mean() > 0.0008  # a dot plot has little colour, but some


def check_pdf(path):
    assert os.path.getsize(path) > 5_000, path
    with open(path, "rb") as f:
        data = f.read()
    assert data.startswith(b"%PDF-") and b"%%EOF" in data[-1024:]


@pytest.mark.parametrize("study", STUDIES)
def test_script_writes_png_and_pdf(run_dir, study):
    result = run_script("plot_%s.py" % study, run_dir)
    assert result.returncode == 0, result.stderr
    png = run_dir / "figures" / ("%s.png" % study)
    pdf = run_dir / "figures" / ("%s.pdf" % study)
    assert "wrote %s" % png in result.stdout
    assert "wrote %s" % pdf in result.stdout
    check_png(png)
    check_pdf(pdf)
    # No temporary file left behind.
    assert sorted(os.listdir(run_dir / "figures")) == ["%s.pdf" % study, "%s.png" % study]


def test_plot_all_draws_every_study(run_dir):
    result = run_script("plot_all.py", run_dir)
    assert result.returncode == 0, result.stderr
    for study in STUDIES:
        for ext in ("png", "pdf"):
            path = run_dir / "figures" / ("%s.%s" % (study, ext))
            assert "wrote %s" % path in result.stdout
            assert path.stat().st_size > 0
    assert "9 drawn, 3 skipped, 0 failed" in result.stdout


def test_usage_errors_exit_2(tmp_path):
    result = run_script("plot_volume.py")
    assert result.returncode == 2 and "usage" in result.stderr
    result = run_script("plot_volume.py", tmp_path / "nowhere")
    assert result.returncode == 2 and "no such run directory" in result.stderr
    result = run_script("plot_all.py", tmp_path / "nowhere")
    assert result.returncode == 2 and "no such run directory" in result.stderr
