"""``mbstudio render`` and ``mbstudio simulate``: headless files from a model file."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from app import cli
from app.document import model_io
from app.document.examples import default_example_path, example_path


def read_png(path) -> np.ndarray:
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOImage import vtkPNGReader

    reader = vtkPNGReader()
    reader.SetFileName(str(path))
    reader.Update()
    image = reader.GetOutput()
    w, h, _ = image.GetDimensions()
    return vtk_to_numpy(image.GetPointData().GetScalars()).reshape(h, w, -1)[::-1, :, :3]


def read_csv(path) -> tuple[list[str], np.ndarray]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], np.array(rows[1:], dtype=float)


@pytest.fixture
def headless(monkeypatch):
    """No display at all: the commands must not need one."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)


def test_simulate_writes_csv_with_time_column_and_conserved_energy(tmp_path, capsys, headless):
    out = tmp_path / "pendulum.csv"
    rc = cli.main(
        [
            "simulate",
            str(default_example_path()),
            "--until",
            "0.5",
            "--dt",
            "0.05",
            "--csv",
            str(out),
            "--accuracy",
            "1e-7",
        ]
    )
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "100%" in err and "11 rows" in err
    header, data = read_csv(out)
    assert header == [
        "t",
        "q:link[0]",
        "u:link[0]",
        "kinetic_energy",
        "potential_energy",
        "total_energy",
    ]
    np.testing.assert_allclose(data[:, 0], np.arange(11) * 0.05, atol=1e-12)
    doc = model_io.load(default_example_path())
    assert data[0, 1] == doc.body("link").q[0]
    assert data[-1, 1] < data[0, 1]  # it swings down
    np.testing.assert_allclose(data[:, 3] + data[:, 4], data[:, 5], rtol=1e-12)
    assert np.ptp(data[:, 5]) < 1e-5 * abs(data[0, 5])
    assert data[-1, 3] > 0.1  # it moves


def test_simulate_closed_loop_model(tmp_path, capsys, headless):
    out = tmp_path / "fourbar.csv"
    rc = cli.main(
        [
            "simulate",
            str(example_path("four_bar")),
            "--until",
            "0.2",
            "--dt",
            "0.1",
            "--csv",
            str(out),
        ]
    )
    assert rc == 0, capsys.readouterr().err
    header, data = read_csv(out)
    assert header[:4] == ["t", "q:crank[0]", "q:coupler[0]", "q:rocker[0]"]
    assert data.shape == (3, len(header))
    assert np.all(np.isfinite(data))
    assert data[-1, 1] != data[0, 1]


def test_simulate_video_frames_show_the_motion(tmp_path, capsys, headless):
    frames = tmp_path / "frames"
    rc = cli.main(
        [
            "simulate",
            str(default_example_path()),
            "--until",
            "0.4",
            "--dt",
            "0.2",
            "--csv",
            str(tmp_path / "p.csv"),
            "--video",
            str(frames),
            "--fps",
            "5",
            "--width",
            "160",
            "--height",
            "120",
        ]
    )
    assert rc == 0, capsys.readouterr().err
    files = sorted(frames.glob("frame_*.png"))
    assert [f.name for f in files] == ["frame_00000.png", "frame_00001.png", "frame_00002.png"]
    images = [read_png(f).astype(int) for f in files]
    assert images[0].shape == (120, 160, 3)
    for img in images:
        assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20  # not a blank image
    assert np.abs(images[0] - images[2]).max() > 60  # the pendulum moved


def test_render_writes_a_png_of_the_model_at_time_t(tmp_path, capsys, headless):
    first, later = tmp_path / "t0.png", tmp_path / "t04.png"
    args = ["render", str(default_example_path()), "--width", "200", "--height", "150"]
    assert cli.main([*args, "--out", str(first)]) == 0, capsys.readouterr().err
    assert cli.main([*args, "--time", "0.4", "--out", str(later)]) == 0
    err = capsys.readouterr().err
    assert "rendered t = 0.4 s" in err
    a, b = read_png(first).astype(int), read_png(later).astype(int)
    assert a.shape == (150, 200, 3)
    # Background and object pixels: the link's red and the bob's blue are drawn.
    colours = a.reshape(-1, 3)
    assert len(np.unique(colours, axis=0)) > 50
    reddish = (colours[:, 0] > 150) & (colours[:, 1] < 110) & (colours[:, 2] < 110)
    assert reddish.sum() > 20
    assert np.abs(a - b).max() > 60


def test_uniform_background_hint_is_used(tmp_path, capsys, headless):
    out = tmp_path / "m.png"
    assert (
        cli.main(
            [
                "render",
                str(example_path("molecule")),
                "--out",
                str(out),
                "--width",
                "160",
                "--height",
                "120",
            ]
        )
        == 0
    ), capsys.readouterr().err
    img = read_png(out).astype(int)
    corner = img[0, 0]
    # Plain background (no sky gradient, no floor) around the atoms.
    assert np.all(img[:, 0] == corner) and np.all(img[-1, :] == corner)
    assert (np.abs(img - corner).max(axis=2) > 30).sum() > 100


def test_bad_model_and_arguments_are_refused_without_writing(tmp_path, capsys, headless):
    raw = model_io.to_json_dict(model_io.load(default_example_path()))
    raw["version"] = 99
    newer = tmp_path / "newer.mbs.json"
    newer.write_text(json.dumps(raw))
    out = tmp_path / "x.png"
    assert cli.main(["render", str(newer), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "version" in err and "newer" in err
    assert not out.exists()
    csv_out = tmp_path / "x.csv"
    assert cli.main(["simulate", str(newer), "--until", "1", "--csv", str(csv_out)]) == 2
    assert not csv_out.exists()
    assert (
        cli.main(["simulate", str(default_example_path()), "--until", "-1", "--csv", str(csv_out)])
        == 2
    )
    assert "positive" in capsys.readouterr().err
    assert cli.main(["render", str(default_example_path()), "--out", str(tmp_path / "x.jpg")]) == 2
    assert ".png" in capsys.readouterr().err


def test_a_negative_accuracy_is_refused_not_ignored(tmp_path, capsys):
    """Issue 22: a negative integrator accuracy was silently ignored."""
    csv_out = tmp_path / "x.csv"
    args = ["simulate", str(default_example_path()), "--until", "0.1", "--csv", str(csv_out)]
    for accuracy in (["--accuracy=-1e-3"], ["--accuracy", "-0.001"], ["--accuracy", "0"]):
        assert cli.main([*args, *accuracy]) == 2
        assert "accuracy: must be a positive number" in capsys.readouterr().err
    assert not csv_out.exists()


def test_help_lists_the_headless_commands(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "mbstudio render" in out and "mbstudio simulate" in out
    assert cli.main(["simulate", "--help"]) == 0
    assert "--csv" in capsys.readouterr().out


def test_simulate_writes_an_mp4_video(tmp_path, capsys, headless):
    import imageio_ffmpeg

    video = tmp_path / "pendulum.mp4"
    rc = cli.main(
        [
            "simulate",
            str(default_example_path()),
            "--until",
            "0.3",
            "--csv",
            str(tmp_path / "p.csv"),
            "--video",
            str(video),
            "--fps",
            "10",
            "--width",
            "160",
            "--height",
            "120",
        ]
    )
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "4 frames" in err
    assert video.read_bytes()[4:8] == b"ftyp"
    frames, _seconds = imageio_ffmpeg.count_frames_and_secs(str(video))
    assert frames == 4


def _falling_model(tmp_path):
    """The pendulum's link on a Free mobilizer: it falls about 44 m in 3 s."""
    raw = model_io.to_json_dict(model_io.load(default_example_path()))
    raw["model"]["bodies"][0].update(mobilizer="Free", q=[1.0, 0, 0, 0, 0, 0, 0], u=[0.0] * 6)
    path = tmp_path / "falling.mbs.json"
    path.write_text(json.dumps(raw))
    return path


def test_render_frames_the_bodies_where_they_are_at_that_time(tmp_path, capsys, headless):
    out = tmp_path / "fallen.png"
    args = ["render", str(_falling_model(tmp_path)), "--width", "200", "--height", "150"]
    assert cli.main([*args, "--time", "3", "--out", str(out)]) == 0, capsys.readouterr().err
    colours = read_png(out).astype(int).reshape(-1, 3)
    reddish = (colours[:, 0] > 150) & (colours[:, 1] < 110) & (colours[:, 2] < 110)
    assert reddish.sum() > 5, "the fallen link is not in the image"


def test_simulate_refuses_a_csv_in_a_missing_directory(tmp_path, capsys, headless):
    missing = tmp_path / "no" / "such" / "dir"
    rc = cli.main(
        ["simulate", str(default_example_path()), "--until", "0.1", "--csv", str(missing / "x.csv")]
    )
    assert rc == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and str(missing) in err
    assert not (tmp_path / "no").exists()  # nothing was created


def test_simulate_refuses_an_unsupported_video_format(tmp_path, capsys, headless):
    csv_out = tmp_path / "x.csv"
    rc = cli.main(
        [
            "simulate",
            str(default_example_path()),
            "--until",
            "0.1",
            "--csv",
            str(csv_out),
            "--video",
            str(tmp_path / "run.avi"),
        ]
    )
    assert rc == 2
    err = capsys.readouterr().err
    assert ".avi" in err and ".mp4" in err and "%d" in err
    assert not (tmp_path / "run.avi").exists() and not csv_out.exists()
    rc = cli.main(
        [
            "simulate",
            str(default_example_path()),
            "--until",
            "0.1",
            "--csv",
            str(csv_out),
            "--video",
            str(tmp_path / "gone" / "run.mp4"),
        ]
    )
    assert rc == 2 and "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "gone").exists()


def test_render_refuses_a_missing_directory(tmp_path, capsys, headless):
    out = tmp_path / "gone" / "x.png"
    assert cli.main(["render", str(default_example_path()), "--out", str(out)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "gone").exists()


def test_render_warns_when_there_is_nothing_on_the_bodies_to_frame(tmp_path, capsys, headless):
    raw = model_io.to_json_dict(model_io.load(default_example_path()))
    raw["model"]["bodies"][0]["geometry"] = []
    raw["model"]["hints"]["show_default_geometry"] = False
    path = tmp_path / "bare.mbs.json"
    path.write_text(json.dumps(raw))
    out = tmp_path / "bare.png"
    assert (
        cli.main(["render", str(path), "--out", str(out), "--width", "80", "--height", "60"]) == 0
    )
    err = capsys.readouterr().err
    assert "warning" in err and "nothing to frame" in err
    assert out.exists()
