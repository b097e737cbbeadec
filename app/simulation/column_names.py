"""The names of the plot-sample columns of a model, made again only past what an edit changed.

A model's sample row is ``t``, every q (``q[i] body.qk``), every u (``u[i] body.uk``), every
udot (``udot[i] body.uk``), the energies and constraint-error norms, then one column per
Measure; ``q[i]``/``u[i]`` are System-wide indices and a slot no body uses is named by its
index alone (``q[i] qi``). ``q_index`` maps (body name, which q) to its System-wide q index.

``ColumnNames.of(built, state, previous)`` makes them from the matter's topology arrays
(every body's first q and u and their numbers, read as whole arrays). Given the names of the
model shown before (``previous``), the q (u) slots before the first body whose name, first q
(u) or number of q (u) differ keep their names as they were (list slices: the bodies and
their layout are the same there); only the rest is made. An edit at the end of a 20,000-body
chain (a leaf added or removed, a body re-parented without moving in the order) thus makes
the names of the changed bodies only; one in the middle, those from there on.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np

#: The columns after the u-dots (then one per Measure).
TOTALS = ("kinetic energy", "potential energy", "total energy", "|qErr|", "|uErr|")


@dataclass(frozen=True)
class ColumnNames:
    """A model's sample columns (``columns``), q and u labels (``body.qk``, or ``qi`` for a
    slot no body uses), ``q_index`` ((body name, which q) -> q index, in q order) and, per
    body index, what they were made from: ``names`` (object array), ``first_q``/``num_q``
    (System-wide first q, number in use) and ``first_u``/``num_u``."""

    columns: list
    q_labels: list
    u_labels: list
    q_index: dict
    names: np.ndarray
    first_q: np.ndarray
    num_q: np.ndarray
    first_u: np.ndarray
    num_u: np.ndarray
    #: runs (position among the quantities, i.e. ``columns[1:]``, position among those of
    #: the ``previous`` given to ``of``, length) of columns that are ``previous``'s strings
    kept: tuple = ()

    @staticmethod
    def of(built, state, previous: ColumnNames | None = None) -> ColumnNames:
        """The column names of ``built``'s System in ``state`` (realized to Model), with
        those ``previous`` already has for the same leading bodies kept."""
        matter = built.matter
        nb = matter.getNumBodies()
        known = [str(name) for name in built.body_name_of_index[:nb]]
        names = np.array(known + [f"body{b}" for b in range(len(known), nb)], dtype=object)
        # (the topology arrays, read only)
        topo = matter._topo(state)  # noqa: SLF001
        num_q = np.asarray(topo.nqs, dtype=np.intp).copy()
        if matter.getUseEulerAngles(state):
            num_q[np.asarray(topo.uses_quaternion, dtype=bool)] -= 1
        index = matter.getMySubsystemIndex()
        first_q = np.asarray(topo.qs, dtype=np.intp) + state.getQStart(index)
        first_u = np.asarray(topo.us, dtype=np.intp) + state.getUStart(index)
        num_u = np.asarray(topo.nus, dtype=np.intp).copy()
        num_q[0] = num_u[0] = 0  # (Ground has no q or u)
        q_cut = u_cut = 0
        if previous is not None:
            old = previous
            q_cut = _kept_slots(
                (old.names, old.first_q, old.num_q, len(old.q_labels)),
                (names, first_q, num_q, state.getNQ()),
            )
            u_cut = _kept_slots(
                (old.names, old.first_u, old.num_u, len(old.u_labels)),
                (names, first_u, num_u, state.getNU()),
            )
        q_labels, q_slots, q_names, q_which = _labels(
            "q", names, first_q, num_q, state.getNQ(), q_cut, previous and previous.q_labels
        )
        u_labels, *_ = _labels(
            "u", names, first_u, num_u, state.getNU(), u_cut, previous and previous.u_labels
        )
        # q_index: the leading bodies' entries as they were, then the rest in q order
        kept = 0 if previous is None else len(_slot_bodies(previous, q_cut))
        q_index = dict(itertools.islice(previous.q_index.items(), kept)) if kept else {}
        q_index.update(zip(zip(q_names, q_which, strict=True), q_slots, strict=True))
        columns = ["t"]
        columns += _section("q", q_labels, q_cut, previous, 0)
        columns += _section("u", u_labels, u_cut, previous, 1)
        columns += _section("udot", u_labels, u_cut, previous, 2)
        columns += TOTALS
        columns += [f"measure {name}" for name in dict(getattr(built, "measures", None) or {})]
        kept_runs = ()
        if previous is not None:
            nq, nu = len(q_labels), len(u_labels)
            old_nq, old_nu = len(previous.q_labels), len(previous.u_labels)
            kept_runs = (
                (0, 0, q_cut),
                (nq, old_nq, u_cut),
                (nq + nu, old_nq + old_nu, u_cut),
            )
        return ColumnNames(
            columns, q_labels, u_labels, q_index, names, first_q, num_q, first_u, num_u, kept_runs
        )

    def renamed(self, renames: dict[str, str]) -> tuple[ColumnNames, dict[int, str]]:
        """These names with the bodies ``renames`` names (old -> new) renamed, the same
        System and State layout: only the renamed bodies' labels, columns and q_index keys
        are made, every other entry is this one's very object. Also returns the new names
        by position among the quantities (``columns[1:]``), for ``QuantityNames.changed``."""
        bodies = [(b, renames[n]) for b, n in enumerate(self.names.tolist()) if n in renames]
        names = self.names.copy()
        q_labels, u_labels, columns = list(self.q_labels), list(self.u_labels), list(self.columns)
        nq, nu = len(q_labels), len(u_labels)
        changed: dict[int, str] = {}

        def put(at: int, column: str) -> None:
            columns[at] = column
            changed[at - 1] = column

        items = list(self.q_index.items())
        # each body's q_index entries are consecutive, in q order: the entries before a
        # body's are those of the slots before its first q that bodies use
        used = np.sort(np.repeat(self.first_q, self.num_q) + _within(self.num_q))
        for b, new in bodies:
            names[b] = new
            first_q, first_u = int(self.first_q[b]), int(self.first_u[b])
            for k in range(int(self.num_q[b])):
                q_labels[first_q + k] = label = f"{new}.q{k}"
                put(1 + first_q + k, f"q[{first_q + k}] {label}")
            for k in range(int(self.num_u[b])):
                u_labels[first_u + k] = label = f"{new}.u{k}"
                put(1 + nq + first_u + k, f"u[{first_u + k}] {label}")
                put(1 + nq + nu + first_u + k, f"udot[{first_u + k}] {label}")
            at = int(np.searchsorted(used, first_q))
            for j in range(at, at + int(self.num_q[b])):
                (_, which), slot = items[j]
                items[j] = ((new, which), slot)
        out = replace(
            self,
            columns=columns,
            q_labels=q_labels,
            u_labels=u_labels,
            q_index=dict(items) if bodies else self.q_index,
            names=names,
            kept=(),
        )
        return out, changed

    def joint_layout(self, mobilizer_types: dict) -> dict[str, tuple[str, tuple[int, ...]]]:
        """Body name -> (its mobilizer type, its q numbers 0..n-1), in q order, for every
        body with q: ``snapshot.joint_layout`` of these names' ``q_index``, made from the
        per-body arrays (first q, number of q) instead of from every q_index entry. Equal
        joint kinds share one value object."""
        bodies = np.flatnonzero(self.num_q > 0)
        bodies = bodies[np.argsort(self.first_q[bodies], kind="stable")]
        whichs = {n: tuple(range(n)) for n in np.unique(self.num_q[bodies]).tolist()}
        shared: dict = {}
        layout = {}
        for name, n in zip(self.names[bodies].tolist(), self.num_q[bodies].tolist(), strict=True):
            joint = (mobilizer_types[name], whichs[n])
            layout[name] = shared.setdefault(joint, joint)
        return layout

    def section(self, which: int) -> list:
        """The q (0), u (1) or udot (2) columns."""
        nq, nu = len(self.q_labels), len(self.u_labels)
        start = 1 + (0, nq, nq + nu)[which]
        return self.columns[start : start + (nq, nu, nu)[which]]


def _kept_slots(old: tuple, new: tuple) -> int:
    """How many leading slots (q or u) are named as before: those before the first body
    whose name, first slot or number of slots differ (or that one model lacks). ``old`` and
    ``new``: (names, first slots, numbers of slots, total slots) of each model."""
    old_names, old_first, old_num, old_total = old
    names, first, num, total = new
    m = min(len(old_names), len(names))
    differs = (old_names[:m] != names[:m]) | (old_first[:m] != first[:m]) | (old_num[:m] != num[:m])
    cut = int(np.argmax(differs)) if differs.any() else m
    old_bound = int(old_first[cut]) if cut < len(old_names) else old_total
    bound = int(first[cut]) if cut < len(names) else total
    return max(0, min(old_bound, bound, old_total, total))


def _slot_bodies(previous: ColumnNames, cut: int) -> np.ndarray:
    """Each q slot of ``previous`` before ``cut`` that a body names (one per q_index entry)."""
    used = np.repeat(previous.first_q, previous.num_q) + _within(previous.num_q)
    return used[used < cut]


def _within(counts: np.ndarray) -> np.ndarray:
    """0, 1, ..., count-1 of every count, concatenated."""
    total = int(counts.sum())
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return np.arange(total, dtype=np.intp) - starts


def _labels(kind: str, names, first, num, total: int, cut: int, old):
    """The labels of every slot (``body.{kind}k``, or ``{kind}i`` for a slot no body
    uses), the first ``cut`` taken from ``old``; and the slots at or past ``cut`` that bodies
    use, their bodies' names and which of their slots they are (in slot order)."""
    which = _within(num)
    slots = np.repeat(first, num) + which
    body_names = np.repeat(names, num)
    past = slots >= cut
    slots, which, body_names = slots[past], which[past], body_names[past]
    labels = np.empty(total - cut, dtype=object)
    named = np.zeros(total - cut, dtype=bool)
    named[slots - cut] = True
    which_list = which.tolist()
    pairs = zip(body_names.tolist(), which_list, strict=True)
    labels[slots - cut] = [f"{n}.{kind}{k}" for n, k in pairs]
    for i in np.flatnonzero(~named).tolist():
        labels[i] = f"{kind}{i + cut}"
    head = old[:cut] if cut else []
    return head + labels.tolist(), slots.tolist(), body_names.tolist(), which_list


def _section(kind: str, labels: list, cut: int, previous: ColumnNames | None, which: int):
    """The columns of one section: the first ``cut`` as ``previous`` has them."""
    head = previous.section(which)[:cut] if cut else []
    return head + [f"{kind}[{i}] {labels[i]}" for i in range(cut, len(labels))]
