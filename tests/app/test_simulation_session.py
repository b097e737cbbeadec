"""The Qt-free simulation session: worker thread, commands, snapshots, failures, pacing."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from app.simulation.samples import SampleBuffer
from app.simulation.session import Pacing, Settings, SimulationSession
from engine import Stage
from tests.app.sim_models import chain


def wait_for(predicate, timeout: float = 10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.005)
    raise AssertionError("condition not met in time")


@pytest.fixture
def session_factory():
    sessions = []

    def make(built, **settings):
        s = SimulationSession(built, Settings(**settings) if settings else None)
        sessions.append(s)
        s.start()
        return s

    yield make
    for s in sessions:
        s.stop()
        assert not s.is_alive


def _snap(session, predicate):
    return wait_for(
        lambda: (lambda s: s if s is not None and predicate(s) else None)(session.latest())
    )


def test_play_pause_step_reset(session_factory):
    s = session_factory(chain(2), pacing=Pacing.FAST)
    first = _snap(s, lambda x: True)
    assert first.time == 0.0 and not first.running
    assert first.x_gb.shape == (3, 4, 4)
    s.play()
    snap = _snap(s, lambda x: x.time > 0.2)
    assert snap.running
    s.pause()
    paused = _snap(s, lambda x: not x.running)
    t_paused = paused.time
    time.sleep(0.05)
    assert s.latest().time == t_paused  # nothing moves while paused
    s.step()
    stepped = _snap(s, lambda x: x.time > t_paused)
    assert stepped.time == pytest.approx(t_paused + s.settings.report_interval, abs=1e-9)
    # The body moved with the state: link1's pose follows q.
    assert not np.allclose(stepped.x_gb[1], first.x_gb[1])
    s.reset()
    reset = _snap(s, lambda x: x.time == 0.0 and x.serial > stepped.serial)
    np.testing.assert_allclose(reset.q, first.q)
    np.testing.assert_allclose(reset.x_gb, first.x_gb)


def test_pendulum_energy_is_conserved_in_samples(session_factory):
    s = session_factory(chain(1), pacing=Pacing.FAST, accuracy=1e-6)
    s.play()
    wait_for(lambda: len(s.samples) > 50)
    s.pause()
    _snap(s, lambda x: not x.running)
    assert s.latest().sample_count == s.samples.total  # paused: nothing sampled since
    energy = s.samples.column("total energy")
    t = s.samples.column("t")
    assert np.all(np.diff(t) > 0)
    assert np.ptp(energy) < 1e-4 * abs(energy[0])
    q = s.samples.column("q[0] link1.q0")
    assert t[0] == 0.0 and q[0] == 0.5  # the State the run started from is sampled
    assert q[1] < 0.5  # the pendulum started at 0.5 rad and swings down


def test_set_q_backs_up_to_time_and_caches_go_stale(session_factory):
    s = session_factory(chain(2))
    _snap(s, lambda x: x.stages.system_stage == Stage.Acceleration)
    s.set_q("link1", 0, 0.25)
    snap = _snap(s, lambda x: x.cascade is not None)
    assert snap.stages.system_stage == Stage.Time
    assert snap.q[0] == 0.25
    assert Stage.Position in snap.cascade.stages[None]
    assert "setQ" in snap.cascade.cause
    position = next(e for e in snap.cache.entries if e.name == "position kinematics")
    assert not position.realized
    assert "updQ" in position.stale_reason or "setQ" in position.stale_reason
    # The view still shows the new pose (computed on a copy).
    assert snap.x_gb is not None
    # Realizing one stage at a time, with timings.
    s.realize_next_stage()
    snap = _snap(s, lambda x: x.stages.system_stage == Stage.Position)
    assert [st for st, _ in snap.stage_timings] == [Stage.Position]
    assert "SimbodyMatterSubsystem: position kinematics" in dict(snap.became_valid)[Stage.Position]
    position = next(e for e in snap.cache.entries if e.name == "position kinematics")
    assert position.realized
    s.realize_to(Stage.Acceleration)
    snap = _snap(s, lambda x: x.stages.system_stage == Stage.Acceleration)
    assert [st for st, _ in snap.stage_timings] == [
        Stage.Velocity,
        Stage.Dynamics,
        Stage.Acceleration,
    ]
    assert all(dt >= 0 for _, dt in snap.stage_timings)


def test_failed_step_pauses_with_message_and_keeps_last_good_state(session_factory):
    s = session_factory(chain(1, fail_after=0.1), pacing=Pacing.FAST)
    s.play()
    snap = _snap(s, lambda x: bool(x.error))
    assert not snap.running and not s.running
    assert "step failed" in snap.error
    assert "test force refuses to act" in snap.error
    assert 0.0 < snap.time <= 0.1 + 1e-9
    assert np.all(np.isfinite(snap.q))
    # Play again: it fails again at the same place rather than crashing the worker.
    s.play()
    again = _snap(s, lambda x: x.serial > snap.serial and bool(x.error) and not x.running)
    assert again.time <= 0.1 + 1e-9
    assert s.is_alive


def test_real_time_pacing_follows_the_clock(session_factory):
    s = session_factory(chain(1), pacing=Pacing.REAL_TIME, speed=1.0)
    s.play()
    start = time.monotonic()
    wait_for(lambda: s.latest().time > 0.3)
    elapsed = time.monotonic() - start
    # Simulated time cannot run ahead of the clock (it may lag on a loaded machine).
    assert s.latest().time <= elapsed * 1.0 + 0.1


def test_sampled_pacing_waits_for_each_frame_to_be_taken(session_factory):
    s = session_factory(chain(1), pacing=Pacing.SAMPLED)
    s.play()
    seen = []
    while len(seen) < 6:
        snap = s.latest()
        if snap is not None and snap.running and (not seen or snap.serial != seen[-1].serial):
            seen.append(snap)
        time.sleep(0.002)
    times = np.array([x.time for x in seen])
    # Every frame is one reporting interval after the previous one: none were skipped.
    np.testing.assert_allclose(np.diff(times), s.settings.report_interval, rtol=1e-6)


def test_integrator_change_and_unknown_name(session_factory):
    s = session_factory(chain(1), pacing=Pacing.FAST)
    s.set_settings(integrator="SemiExplicitEuler2", accuracy=1e-4)
    s.step()
    snap = _snap(s, lambda x: x.time > 0)
    assert not snap.error
    s.set_settings(integrator="NoSuchMethod")
    bad = _snap(s, lambda x: bool(x.error))
    assert "unknown integrator" in bad.error


def test_replace_model_carries_state_by_body_name(session_factory):
    s = session_factory(chain(1), pacing=Pacing.FAST)
    s.step()
    before = _snap(s, lambda x: x.time > 0)
    s.replace_model(chain(2))
    after = _snap(s, lambda x: x.model_serial != before.model_serial)
    assert after.x_gb.shape == (3, 4, 4)
    assert after.time == pytest.approx(before.time)
    assert after.q[0] == pytest.approx(before.q[0])


def test_stop_while_running_joins_the_worker(session_factory):
    s = session_factory(chain(3), pacing=Pacing.FAST)
    s.play()
    wait_for(lambda: s.latest().time > 0)
    s.stop()
    assert not s.is_alive
    assert not any(
        t.name == "mbstudio-simulation" and t.is_alive()
        for t in threading.enumerate()
        if t is s._thread
    )


def test_sample_buffer_ring_and_csv(tmp_path):
    buf = SampleBuffer(["t", "a", "b,c"], capacity=4)
    for k in range(6):
        buf.append([k, 10 * k, -k])
    assert len(buf) == 4 and buf.total == 6
    np.testing.assert_array_equal(buf.column("t"), [2, 3, 4, 5])
    rows, n = buf.since(4, [0, 2])
    np.testing.assert_array_equal(rows, [[4, -4], [5, -5]])
    assert n == 6
    rows, n = buf.since(0)
    assert rows.shape == (4, 3)  # the two oldest rows were overwritten
    buf.to_csv(tmp_path / "s.csv", ["b,c"])
    lines = (tmp_path / "s.csv").read_text().splitlines()
    assert lines[0] == 't,"b,c"'
    assert lines[1].split(",") == ["2", "-2"]
    with pytest.raises(ValueError):
        buf.append([1, 2])


def test_posing_a_closed_loop_reassembles_it(session_factory):
    from app.document import build, model_io
    from app.document.examples import example_path

    built = build(model_io.load(example_path("four_bar")))
    assert built.constraints
    s = session_factory(built)
    first = _snap(s, lambda x: True)
    crank = built.body_name_of_index[1]
    s.set_q(crank, 0, first.q[0] + 0.3)
    snap = _snap(s, lambda x: x.cascade is not None)
    assert not snap.error
    assert snap.q[0] == pytest.approx(first.q[0] + 0.3)  # the moved joint stays where put
    assert np.all(np.abs(snap.q[1:] - first.q[1:]) > 1e-3)  # the others follow the loop
    qerr = next(v for v in snap.cache.variables if v.name == "qErr")
    if qerr.value is None:  # not realized to Position yet: realize and look again
        s.realize_to(Stage.Position)
        snap = _snap(s, lambda x: x.stages.system_stage >= Stage.Position)
        qerr = next(v for v in snap.cache.variables if v.name == "qErr")
    assert np.max(np.abs(qerr.value)) < 1e-6


def test_a_model_that_cannot_start_says_so(session_factory):
    s = session_factory(chain(1, fail_after=-1.0))
    first = _snap(s, lambda x: True)
    assert "realizing the model failed" in first.error  # shown as soon as it is loaded
    s.play()
    snap = _snap(s, lambda x: x.serial > first.serial and "integrator" in x.error)
    assert "starting the integrator failed" in snap.error
    assert "test force refuses to act" in snap.error
    assert not snap.running and snap.time == 0.0


def test_slow_models_report_more_often_in_real_time():
    s = SimulationSession(
        chain(1), Settings(pacing=Pacing.REAL_TIME, frame_interval=1.0 / 30.0)
    )  # never started
    base = s.settings.report_interval
    assert s._frame_interval_in_sim_time() == base  # no cost measured yet
    s._cost = 0.5  # half a wall second per simulated second: a frame holds 0.067 s
    assert s._frame_interval_in_sim_time() == base
    s._cost = 3.0  # a frame holds 0.009 s: report every half interval
    assert s._frame_interval_in_sim_time() == base / 2
    s._cost = 100.0
    assert s._frame_interval_in_sim_time() == base / 4  # bounded
    s.settings = Settings(pacing=Pacing.FAST)
    assert s._frame_interval_in_sim_time() == base


def _example_keys():
    from app.document.examples import examples

    return [e.key for e in examples()]


@pytest.mark.parametrize("key", _example_keys())
def test_every_example_steps_and_plays(session_factory, key):
    from app.document import build, model_io
    from app.document.examples import example_path

    s = session_factory(build(model_io.load(example_path(key))), pacing=Pacing.FAST)
    first = _snap(s, lambda x: True)
    assert not first.error and first.x_gb is not None
    s.step()
    stepped = _snap(s, lambda x: x.time > 0 or bool(x.error))
    assert not stepped.error
    s.play()
    ran = _snap(s, lambda x: x.time >= 0.1 or bool(x.error))
    s.pause()
    assert not ran.error
    assert np.all(np.isfinite(ran.x_gb)) and np.all(np.isfinite(ran.q))
    moved = not np.allclose(ran.q, first.q) or not np.allclose(ran.u, first.u)
    assert moved, "nothing moves in the example"
    assert np.all(np.isfinite(s.samples.column("total energy")))


def test_cascade_names_exactly_the_stages_an_edit_invalidated():
    from app.simulation.snapshot import all_stage_versions, cascade_between

    model = chain(2)
    state = model.system.realizeTopology()
    model.system.realize(state, Stage.Dynamics)
    before = all_stage_versions(state)
    state.setU(np.array([0.1, -0.2]))
    cascade = cascade_between(before, all_stage_versions(state), "setU")
    # Velocity and Dynamics were valid and went stale; Acceleration was never valid.
    expected = (Stage.Velocity, Stage.Dynamics)
    assert cascade.stages[None] == expected
    assert all(cascade.stages[i] == expected for i in range(state.getNumSubsystems()))
    model.system.realize(state, Stage.Dynamics)
    before = all_stage_versions(state)
    model.system.realize(state, Stage.Report)
    assert cascade_between(before, all_stage_versions(state), "realize").stages == {}


def _two_link_data(mass: float = 1.0):
    from app.document import BodySpec, ElementSpec, FrameSpec, ModelData

    link = dict(mobilizer="Pin", X_BM=FrameSpec((0.0, 1.0, 0.0)), inertia=(0.1,) * 3 + (0.0,) * 3)
    return ModelData(
        bodies=[BodySpec("a", mass=mass, **link), BodySpec("b", parent="a", **link)],
        forces=[ElementSpec("Gravity", {"down": (0.0, -1.0, 0.0), "magnitude": 9.81})],
    )


def test_rebuild_builds_the_edited_model_in_the_worker(session_factory):
    from types import SimpleNamespace

    from app.document import build
    from app.simulation.session import REBUILD_FAILED

    s = session_factory(build(_two_link_data()), pacing=Pacing.FAST)
    s.step()
    before = _snap(s, lambda x: x.time > 0)
    s.rebuild(SimpleNamespace(data=_two_link_data(mass=2.0), base_dir=None), "parameters")
    after = _snap(s, lambda x: x.model_serial != before.model_serial)
    assert s.built.data.bodies[0].mass == 2.0
    assert after.time == pytest.approx(before.time)  # same layout: t, q, u carried over
    np.testing.assert_allclose(after.q, before.q)
    # a model that cannot be built (a massless chain) keeps the running one and says why
    s.rebuild(SimpleNamespace(data=_two_link_data(mass=0.0), base_dir=None), "parameters")
    failed = _snap(s, lambda x: bool(x.error))
    assert failed.error.startswith(REBUILD_FAILED) and "'a'" in failed.error
    assert failed.model_serial == after.model_serial and s.built.data.bodies[0].mass == 2.0
    s.rebuild(SimpleNamespace(data=_two_link_data(mass=3.0), base_dir=None), "parameters")
    fixed = _snap(s, lambda x: x.model_serial != after.model_serial)
    assert not fixed.error and s.built.data.bodies[0].mass == 3.0


def test_queued_rebuilds_build_only_the_latest_model():
    from app.simulation.session import _coalesce_rebuilds

    commands = [
        ("rebuild", "v1", "initial_state"),
        ("set_q", "a", 0, 1.0),
        ("rebuild", "v2", "topology"),
        ("play",),
        ("rebuild", "v3", "parameters"),
    ]
    assert _coalesce_rebuilds(commands) == [
        ("set_q", "a", 0, 1.0),
        ("play",),
        ("rebuild", "v3", frozenset({"initial_state", "topology", "parameters"})),
    ]
    only_initial = [("rebuild", "v1", "initial_state"), ("rebuild", "v2", "initial_state")]
    assert _coalesce_rebuilds(only_initial) == [("rebuild", "v2", frozenset({"initial_state"}))]
