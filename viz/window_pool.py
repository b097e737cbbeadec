"""On-screen vtkRenderWindows reused by the Qt views of one process (no Qt here).

VTK's X11 render window, given a window made by someone else (Qt's native window), looks up
that window's GLX frame-buffer configuration the first time it draws: it asks for the visual
of every configuration the server offers (several hundred under Mesa) and frees none of those
answers, about 0.25 MB per render window for the rest of the process. A render window keeps
the configuration it found when it is finalized, as long as its X display connection stays
open. So the views draw into render windows from here: ``take()`` gives a released one (it
draws into the next native window without looking the configuration up again) or a new one on
this module's display connection, which stays open (a finalized window that opened its own
connection closes it, and the configuration with it); ``release(window)`` takes a finalized
window back, stripped of its renderers, interactor and observers. The pool holds at most
``MAX_KEPT`` windows: as many as views were closed at once, a handful at most.

Anywhere but on an X display (no DISPLAY, another window system, a VTK built without X),
``take()`` gives a new vtkRenderWindow and ``release`` lets it go.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import weakref

import vtkmodules.vtkRenderingOpenGL2  # noqa: F401  (registers the OpenGL implementations)
from vtkmodules.vtkRenderingCore import vtkRenderWindow

MAX_KEPT = 4

_free: list = []
#: The windows made on the shared display connection (only those may be reused).
_made_here: weakref.WeakSet = weakref.WeakSet()
#: The shared X display connection as VTK's Python wrapping takes a void* ("_<hex>_p_void"),
#: "" before it is opened, None if it cannot be.
_display: str | None = ""


def _shared_display() -> str | None:
    """The process's X display connection for render windows (opened on first use)."""
    global _display
    if _display == "":
        _display = None
        name = ctypes.util.find_library("X11")
        if sys.platform.startswith("linux") and os.environ.get("DISPLAY") and name:
            xlib = ctypes.CDLL(name)
            xlib.XOpenDisplay.restype = ctypes.c_void_p
            xlib.XOpenDisplay.argtypes = [ctypes.c_char_p]
            pointer = xlib.XOpenDisplay(None)
            if pointer:
                _display = f"_{pointer:016x}_p_void"
    return _display


def take() -> vtkRenderWindow:
    """A render window for a new view: a released one, or a new one."""
    if _free:
        return _free.pop()
    window = vtkRenderWindow()
    if window.IsA("vtkXOpenGLRenderWindow"):
        display = _shared_display()
        if display is not None:
            window.SetDisplayId(display)
            _made_here.add(window)
    return window


def release(window: vtkRenderWindow) -> None:
    """Take back ``window``, finalized by its view (Finalize() releases its OpenGL context
    and the view's native window is no longer drawn into)."""
    if window in _made_here and len(_free) < MAX_KEPT:
        interactor = window.GetInteractor()
        if interactor is not None:
            interactor.SetRenderWindow(None)
            window.SetInteractor(None)
        renderers = window.GetRenderers()
        for renderer in [renderers.GetItemAsObject(i) for i in range(renderers.GetNumberOfItems())]:
            window.RemoveRenderer(renderer)
        window.RemoveAllObservers()
        _free.append(window)


def kept() -> int:
    """The number of released windows waiting to be reused."""
    return len(_free)
