"""VideoRecorder: frames at wall-clock pace into an MP4, encoded on its own thread."""

from __future__ import annotations

import imageio_ffmpeg
import numpy as np
import pytest

from app.video_recorder import VideoRecorder


def test_frames_keep_wall_clock_time_and_the_file_is_complete(tmp_path):
    path = tmp_path / "clip.mp4"
    recorder = VideoRecorder(path, fps=30.0)
    image = np.zeros((61, 81, 3), dtype=np.uint8)  # odd sizes are cropped to even ones
    image[10:30, 20:50] = (200, 30, 30)
    assert recorder.offer(image, 0.0) == 1
    assert recorder.offer(image, 0.01) == 0  # too soon for the next video frame
    assert recorder.offer(image, 0.1) == 3  # shown for three frame periods
    recorder.finish()
    assert recorder.wait(60) and not recorder.error
    assert recorder.written == 4 and recorder.pending == 0
    frames, _ = imageio_ffmpeg.count_frames_and_secs(str(path))
    assert frames == 4
    reader = imageio_ffmpeg.read_frames(str(path))
    assert next(reader)["size"] == (80, 60)
    reader.close()


def test_refuses_other_formats_and_missing_directories(tmp_path):
    with pytest.raises(ValueError, match="mp4"):
        VideoRecorder(tmp_path / "clip.avi")
    with pytest.raises(ValueError, match="does not exist"):
        VideoRecorder(tmp_path / "gone" / "clip.mp4")
