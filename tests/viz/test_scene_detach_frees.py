"""A Scene detached from its window leaves no observer on its renderer (the per-frame
``_before_frame`` call is there only while it draws into a window), and is collected although
its renderer lives on in another VTK object."""

from __future__ import annotations

import gc
import weakref

from vtkmodules.vtkRenderingCore import vtkRendererCollection

from viz.scene import Scene


def test_a_detached_scene_is_collected_while_its_renderer_is_held_elsewhere():
    scene = Scene()
    window = scene.attach_offscreen(64, 64)
    scene.render()
    holder = vtkRendererCollection()  # another VTK object keeping the renderer
    holder.AddItem(scene.renderer)
    scene.detach()
    assert not scene.renderer.HasObserver("StartEvent")
    gone = weakref.ref(scene)
    del scene
    gc.collect()
    assert gone() is None
    assert holder.GetNumberOfItems() == 1
    del window
