"""VideoRecorder: frames of the 3-D view to an MP4 file, encoded on a background thread.

The GUI thread hands over frames ((h, w, 3) uint8 arrays, row 0 at the top) with
``offer(image, wall_time)``; the recorder keeps the video's clock at wall-clock time (a frame
shown for several video frame periods is written that many times, at most ``MAX_REPEAT``)
and passes them through a bounded queue to a thread that feeds the existing encoder
(``viz.offscreen.FrameWriter``, H.264 through imageio-ffmpeg). When the encoder falls behind,
frames are dropped (counted in ``dropped``) rather than stalling the GUI. ``finish()`` ends
the input; ``done`` becomes true once every queued frame is encoded and the file is closed,
and ``pending`` says how many frames are still waiting. Qt-free.
"""

from __future__ import annotations

import queue
import threading
from pathlib import Path

import numpy as np

from viz.offscreen import FrameWriter

MAX_REPEAT = 10
QUEUE_FRAMES = 90


class VideoRecorder:
    """See the module docstring. ``path`` must end in .mp4; ``fps`` frames per wall second."""

    def __init__(self, path, fps: float = 30.0) -> None:
        self.path = Path(path)
        if self.path.suffix.lower() != ".mp4":
            raise ValueError(f"videos are written as .mp4, got {self.path.name}")
        if not self.path.parent.is_dir():
            raise ValueError(f"the directory {self.path.parent} does not exist")
        self.fps = float(fps)
        self._writer = FrameWriter(self.path, fps=self.fps)
        self._queue: queue.Queue = queue.Queue(maxsize=QUEUE_FRAMES)
        self._size: tuple[int, int] | None = None
        self._next_time: float | None = None
        self.offered = 0
        self.queued = 0
        self.dropped = 0
        self.written = 0
        self.error = ""
        self._finished = False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._encode, name="mbstudio-video", daemon=True)
        self._thread.start()

    # -- GUI side -------------------------------------------------------------------------------

    def offer(self, image: np.ndarray, wall_time: float) -> int:
        """Add the frame shown from ``wall_time`` (s) on; returns how many copies were queued
        (0 when it is too soon for the next video frame, or the encoder is behind)."""
        if self._finished:
            return 0
        image = np.asarray(image)
        if self._size is None:
            # Even sizes: H.264 needs them; later frames are cropped to the first's size.
            h, w = image.shape[0] // 2 * 2, image.shape[1] // 2 * 2
            self._size = (h, w)
            self._next_time = wall_time
        h, w = self._size
        if image.shape[0] < h or image.shape[1] < w:
            padded = np.zeros((h, w, 3), dtype=np.uint8)
            padded[: image.shape[0], : image.shape[1]] = image[:h, :w]
            image = padded
        frame = np.ascontiguousarray(image[:h, :w, :3])
        period = 1.0 / self.fps
        copies = 0
        while self._next_time <= wall_time and copies < MAX_REPEAT:
            copies += 1
            self._next_time += period
        if self._next_time <= wall_time:  # a long pause: the clock jumps
            self._next_time = wall_time + period
        self.offered += 1
        queued = 0
        for _ in range(copies):
            try:
                self._queue.put_nowait(frame)
                queued += 1
            except queue.Full:
                self.dropped += 1
        self.queued += queued
        return queued

    def finish(self) -> None:
        """No more frames: the thread encodes what is queued and closes the file."""
        if not self._finished:
            self._finished = True
            self._queue.put(None)

    @property
    def pending(self) -> int:
        """Frames queued but not encoded yet."""
        return max(self.queued - self.written, 0)

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    # -- encoder thread -------------------------------------------------------------------------

    def _encode(self) -> None:
        try:
            while True:
                frame = self._queue.get()
                if frame is None:
                    break
                if not self.error:
                    try:
                        self._writer.write(frame)
                    except Exception as exc:  # noqa: BLE001  (reported; frames are drained)
                        self.error = f"{type(exc).__name__}: {exc}"
                self.written += 1
        finally:
            try:
                self._writer.close()
            except Exception as exc:  # noqa: BLE001
                self.error = self.error or f"{type(exc).__name__}: {exc}"
            self._done.set()
