"""The standard figure of each netdp command (netdp.plot, docs/plot.md): one drawer per command, taking the
results directory (a Run) and an optional Axes (then only the main panel is drawn) and returning the Figure."""

import numpy as np

from ._draw_common import (MAX_DRAWN_NODES, MAX_HEATMAP, Run, band, draw_edges, finish, hop_distances, layout,
                           log_if_wide, message, panels)
from ._draw_panels import spread
from ._draw_study import draw_demo, draw_study

__all__ = ["DRAWERS", "Run"]

LOSS_NAMES = {"gossip-loss": "Renyi loss f(u, v) of gossip", "gossip-er-bound": "Thm 6.6 bound on f(u, v)",
              "walk-loss": "Renyi loss eps(u -> v) of the walk", "mf-loss": "Renyi loss of MF-D-SGD"}


def _by_distance_panel(ax, table, what, label, style=None):
    """Mean loss by hop distance with its min-max band over the pairs (the unreachable row 'inf' left out)."""
    keep = np.isfinite(table["distance"])
    d = table["distance"][keep]
    band(ax, d, table["mean"][keep], table["min"][keep], table["max"][keep], f"{label}: mean over pairs",
         f"{label}: min to max over pairs", **(style or {}))
    return d


def _order_by_distance(run, n, source):
    """Node order for the heat map: by hop distance from `source` (ties by index), and the axis words."""
    graph = run.graph()
    if graph is not None and graph[0] == n:
        distance = hop_distances(n, graph[1], source)
        return np.lexsort((np.arange(n), distance)), f"nodes by hop distance from node {source}", distance
    return np.arange(n), "nodes by index (graph not available: not ordered by distance)", None


def _heatmap(ax, matrix, order, rows_order, axis_words, title, colour_label, row_names=None):
    """A loss matrix as an image, rows and columns in the given orders, log colours when it spans decades."""
    from matplotlib.colors import LogNorm
    shown = np.asarray(matrix, dtype=float)[np.ix_(rows_order, order)]
    finite = shown[np.isfinite(shown) & (shown > 0)]
    norm = LogNorm(finite.min(), finite.max()) if finite.size and finite.max() / finite.min() > 100 else None
    image = ax.imshow(np.where(shown > 0, shown, np.nan) if norm else shown, aspect="auto", norm=norm,
                      cmap="viridis", interpolation="nearest")
    ax.figure.colorbar(image, ax=ax, label=colour_label)
    if len(order) <= 24:  # small graphs: the node ids themselves, in the drawn order
        ax.set_xticks(range(len(order)), [str(v) for v in order], fontsize=7)
        names = row_names if row_names is not None else [str(v) for v in rows_order]
        ax.set_yticks(range(len(rows_order)), names, fontsize=7)
    rows_words = "source u (same order)" if rows_order is order else "source row (file order)"
    finish(ax, f"observer v ({axis_words})", rows_words, title, legend=False)


def draw_loss(run, ax=None, source=None, **_):
    """gossip-loss, gossip-er-bound, walk-loss, mf-loss: loss by distance (mean, min-max band) and the loss
    matrix as a heat map ordered by distance from a source; mf-loss adds sensitivities by distance."""
    model = run.model
    name = LOSS_NAMES.get(model, "pairwise loss")
    matrix = run.array("loss.npy") if run.has("loss.npy") else None
    heat = matrix is not None and matrix.shape[1] <= MAX_HEATMAP
    extra = model == "mf-loss" and run.has("sensitivity.npy")
    figure, axes = panels(ax, 1 + heat + extra)
    main = axes[0]
    if run.has("by_distance.csv"):
        d = _by_distance_panel(main, run.table("by_distance.csv"), name, model)
        if run.has("baseline_by_distance.csv"):
            _by_distance_panel(main, run.table("baseline_by_distance.csv"), name, "Muffliato-SGD baseline",
                               {"ls": "--"})
        ldp = run.summary.get("ldp_loss", run.summary.get("local_loss"))
        if isinstance(ldp, (int, float)) and not isinstance(ldp, bool):
            main.axhline(ldp, color="black", ls=":", lw=1, label="LDP level (one message seen)")
        log_if_wide(main, run.table("by_distance.csv")["min"], run.table("by_distance.csv")["max"])
        if len(d):
            main.set_xticks(np.unique(d)[:: max(1, len(d) // 12)])
        finish(main, "hop distance d(u, v) (edges)", f"{name} (nats)",
               f"{model}: loss by distance, mean with min-max over pairs (n = {run.summary.get('n', '?')})")
    else:
        message(main, "no by_distance.csv (trust observation: one row per victim)", f"{model}")
    if len(axes) < 2:
        return figure
    at = 1
    if heat:
        n = matrix.shape[1]
        if source is None:
            attackers = run.summary.get("attackers")
            source = run.summary.get("source") or (attackers[0] if isinstance(attackers, list) and attackers
                                                   and isinstance(attackers[0], int) else 0)
        order, words, _ = _order_by_distance(run, n, int(source))
        row_names = None
        if matrix.shape[0] == n:
            rows_order, what = order, "every source"
        else:  # one row (--source) or the attackers' rows (mf-loss): kept in file order, named by their node
            rows_order, what = np.arange(matrix.shape[0]), f"{matrix.shape[0]} source row(s)"
            nodes = ([int(source)] if matrix.shape[0] == 1 and model != "mf-loss" else
                     _attacker_rows(run.summary.get("attackers"), matrix.shape[0], n))
            row_names = [str(v) for v in nodes] if nodes else None
        _heatmap(axes[at], matrix, order, rows_order, words, f"{model}: loss matrix, {what}", f"{name} (nats)",
                 row_names)
        at += 1
    if extra:
        _sensitivity_panel(run, axes[at])
    return figure


def _attacker_rows(value, rows, n):
    """mf-loss's attackers (summary.json: "all", "0,3" or a list) as node indices, one per matrix row."""
    if value == "all" or value is None:
        nodes = list(range(n))
    elif isinstance(value, str):
        nodes = [int(v) for v in value.split(",") if v.strip().lstrip("-").isdigit()]
    else:
        nodes = [int(v) for v in value if isinstance(v, (int, float))]
    return nodes if len(nodes) == rows else None


def _sensitivity_panel(run, ax):
    """mf-loss: sens(u -> v) by hop distance from the attacker, mean with min-max over attackers and victims."""
    sens = np.asarray(run.array("sensitivity.npy"), dtype=float)
    graph = run.graph()
    attackers = _attacker_rows(run.summary.get("attackers"), sens.shape[0], sens.shape[1])
    if graph is None or graph[0] != sens.shape[1] or attackers is None:
        message(ax, "hop distances not available (graph not rebuilt)", "mf-loss: sensitivities")
        return
    by = {}
    for row, a in enumerate(attackers):
        distance = hop_distances(graph[0], graph[1], a)
        for v in range(sens.shape[1]):
            if np.isfinite(sens[row, v]) and np.isfinite(distance[v]) and v != a:
                by.setdefault(int(distance[v]), []).append(sens[row, v])
    if not by:
        message(ax, "every sensitivity is infinite (no correlation: the attacker sees the raw noise)",
                "mf-loss: sensitivities")
        return
    d = sorted(by)
    band(ax, d, [np.mean(by[k]) for k in d], [np.min(by[k]) for k in d], [np.max(by[k]) for k in d],
         "sens(u -> v): mean over pairs", "min to max over pairs")
    finish(ax, "hop distance from the attacker (edges)", "sensitivity sens(u -> v) (units of the clip)",
           "mf-loss: sensitivity of the attacker's view by distance")


def draw_graph(run, ax=None, **_):
    """netdp graph: degree histogram and, for small graphs, the drawing."""
    n, edges = run.graph()[:2]
    drawn = n <= MAX_DRAWN_NODES
    figure, axes = panels(ax, 1 + drawn)
    degree = np.bincount(edges.ravel(), minlength=n) if n else np.zeros(0, int)
    axes[0].hist(degree, bins=np.arange(degree.max() + 2) - 0.5 if n else 1, color="C0", label="nodes per degree")
    stats = run.json("stats.json") if run.has("stats.json") else {}
    finish(axes[0], "degree (neighbours)", "number of nodes",
           f"graph: degree histogram (n = {n}, m = {len(edges)}, diameter {stats.get('diameter', '?')})")
    if drawn and len(axes) > 1:
        positions = None
        if run.has("positions.csv"):
            t = run.table("positions.csv")
            positions = np.column_stack([t["x"], t["y"]])
        xy = layout(n, edges, positions)
        draw_edges(axes[1], xy, edges)
        axes[1].scatter(xy[:, 0], xy[:, 1], s=18, c="C0", zorder=2, label="node")
        finish(axes[1], "x (positions.csv)" if positions is not None else "spring layout (no unit)", "",
               f"graph: {run.parameters.get('graph', '')}")
    return figure


def draw_gossip_sim(run, ax=None, **_):
    """gossip-sim: error to the average per round against the theorem's bound; privacy by distance."""
    privacy = run.has("privacy_by_distance.csv")
    figure, axes = panels(ax, 1 + privacy)
    t = run.table("mse.csv")
    x = t["t"]
    band(axes[0], x, t["mean"], t["mean"] - t["stderr"], t["mean"] + t["stderr"], "error to the true average",
         "mean +- standard error over runs")
    axes[0].plot(x, t["noisy_mean"], ls="-.", label="error to the noisy average (consensus)")
    if t.finite("bound"):
        axes[0].plot(x, t["bound"], "k--", lw=1, label=f"theory: {run.summary.get('bound_rule', 'bound')}")
    floor = run.summary.get("noise_floor")
    if isinstance(floor, (int, float)):
        axes[0].axhline(floor, color="grey", ls=":", label="noise floor D sigma^2 / n")
    log_if_wide(axes[0], t["mean"], t["noisy_mean"])
    finish(axes[0], "round t (" + ("ticks" if run.summary.get("protocol") == "randomized" else "rounds") + ")",
           "mean squared error (1/n) sum ||x_v - mean||^2",
           f"gossip-sim ({run.summary.get('protocol', '')}): error per round, {run.summary.get('runs', '?')} runs")
    if privacy and len(axes) > 1:
        for name, label in (("privacy_by_distance.csv", "hop distance in the graph"),
                            ("privacy_by_union_distance.csv", "hop distance in each run's union graph")):
            if run.has(name):
                p = run.table(name)
                keep = np.isfinite(p["distance"])
                band(axes[1], p["distance"][keep], p["mean"][keep], p["min"][keep], p["max"][keep], label)
        finish(axes[1], "hop distance d(u, v) (edges)", "pairwise Renyi loss f(u, v) (nats)",
               "gossip-sim: loss by distance, min-max over pairs and runs")
    return figure


def draw_walk_sim(run, ax=None, **_):
    """walk-sim: visit counts, return times and per-node visits against theory; network loss by distance."""
    accounting = run.has("by_distance.csv")
    figure, axes = panels(ax, 3 + accounting, width=4.8)
    histograms = (("visit_counts.csv", "visits", "visits of a node in one run", "visit counts"),
                  ("return_times.csv", "m", "return time m (steps)", "return times"),
                  ("hitting_times.csv", "h", "hitting time h (steps)", "hitting times"))
    for ax_k, (name, column, xlabel, words) in zip(axes, histograms[:2]):
        t = run.table(name)
        ax_k.bar(t[column], t["count"], color="C0", alpha=0.6, label="simulated (all nodes and runs)")
        if t.finite("expected"):
            ax_k.plot(t[column], t["expected"], "k.-", lw=1, ms=3, label="theory (complete graph)")
        else:
            ax_k.plot([], [], " ", label="no theory column: complete graph only")
        finish(ax_k, xlabel, "count (node-runs)" if column == "visits" else "count (occurrences)",
               f"walk-sim: {words} against theory")
    if len(axes) > 2:
        if run.has("nodes.csv"):
            t = run.table("nodes.csv")
            axes[2].scatter(t["visits_expected"], t["visits_mean"], s=12, label="node v")
            top = float(np.nanmax(np.concatenate([t["visits_expected"], t["visits_mean"]])))
            axes[2].plot([0, top], [0, top], "k--", lw=1, label="theory: T pi_v")
            finish(axes[2], "expected visits T pi_v (visits per run)", "simulated visits per run",
                   "walk-sim: visits per node against T pi_v")
        else:
            message(axes[2], "nodes.csv skipped (more than 100000 nodes)", "walk-sim: visits per node")
    if accounting and len(axes) > 3:
        p = run.table("by_distance.csv")
        band(axes[3], p["distance"], p["mean"], p["min"], p["max"], "network loss: mean over pair-runs")
        finish(axes[3], "hop distance d(u, v) (edges)", "pairwise loss eps(u -> v) (epsilon units)",
               "walk-sim: empirical network loss by distance")
    return figure


# Learning curves: (column stem, y label, log scale when wide) in the order of the panels.
CURVES = (("objective", "training objective phi (loss units)"), ("gap", "optimality gap phi - phi* (loss units)"),
          ("test_loss", "test loss (loss units)"), ("accuracy", "test accuracy (fraction)"),
          ("consensus", "consensus distance (1/n) sum ||theta_v - mean||^2"),
          ("distance", "distance to the fixed point ||u_k - u*||^2"))


def draw_curves(run, ax=None, **_):
    """walk-sgd, muffliato-sgd, muffliato-gd, mf-sgd, admm: learning curves over the runs with their band
    (min-max where curves.csv has them, else mean +- std or standard error)."""
    t = run.table("curves.csv")
    x_name = "t" if "t" in t else "step"
    shown = [(stem, label) for stem, label in CURVES if t.finite(f"{stem}_mean")]
    if run.model == "muffliato-gd" and any(s == "gap" for s, _ in shown):
        shown = [(s, label) for s, label in shown if s != "objective"]  # the gap says it, on a log scale
    privacy = run.model == "muffliato-gd" and run.has("privacy.csv")
    figure, axes = panels(ax, max(1, len(shown) + privacy), width=4.8)
    runs = run.summary.get("runs", "?")
    for a, (stem, label) in zip(axes, shown):
        mean = t[f"{stem}_mean"]
        low, high, words = spread(t, stem)
        band(a, t[x_name], mean, low, high, f"mean over {runs} run(s)", words)
        if stem == "distance" and t.finite("utility_bound"):
            a.plot(t[x_name], t["utility_bound"], "k--", lw=1, label="Thm 8.5 bound")
        if stem in ("gap", "consensus", "distance"):
            log_if_wide(a, mean[mean > 0] if (mean > 0).any() else mean)
        finish(a, f"{'iteration t' if x_name == 't' else 'step'} ({_step_unit(run.model)})", label,
               f"{run.model}: {stem.replace('_', ' ')} per {_step_unit(run.model)[:-1]}")
    if not shown:
        message(axes[0], "curves.csv has no finite curve", run.model)
    if privacy and len(axes) > len(shown):
        p = run.table("privacy.csv")
        a = axes[len(shown)]
        for accountant in dict.fromkeys(p["accountant"]):
            rows = [r for r in p.rows if r["accountant"] == accountant and r["distance"] not in ("all", "inf")]
            if rows:
                d = [float(r["distance"]) for r in rows]
                band(a, d, [float(r["mean"]) for r in rows], [float(r["min"]) for r in rows],
                     [float(r["max"]) for r in rows], f"{accountant}: mean over pairs")
        finish(a, "hop distance d(u, v) (edges)", "pairwise Renyi loss after T steps (nats)",
               "muffliato-gd: privacy loss by distance")
    return figure


def _step_unit(model):
    return {"muffliato-gd": "gradient steps", "muffliato-sgd": "participations", "admm": "iterations",
            "walk-sgd": "walk steps", "mf-sgd": "rounds"}.get(model, "steps")


# Bound columns worth a line, with their legend words; the first present decides the y label.
BOUND_LINES = (("eps", "network DP epsilon"), ("eps_ldp", "local DP epsilon (same noise)"),
               ("eps_spotted", "epsilon of spotted contributions"), ("eps_printed", "epsilon as printed (preprint)"),
               ("rdp", "network RDP at alpha"), ("sigma_local", "sigma, local DP"),
               ("sigma_central", "sigma, central DP"), ("sigma_network", "sigma, network DP"),
               ("std", "std of the network sum"), ("std_ldp", "std, local DP"),
               ("std_distributed", "std, distributed"))


def draw_bound(run, ax=None, **_):
    """netdp bound SUBCOMMAND: the guarantee (or noise) against n, network against local DP."""
    figure, axes = panels(ax, 1)
    t = run.table("bound.csv")
    drawn = [(c, words) for c, words in BOUND_LINES if t.finite(c)]
    for column, words in drawn:
        axes[0].plot(t["n"], t[column], marker="o", ms=3, label=words, ls="--" if "ldp" in column else "-")
    if not drawn:
        message(axes[0], "no epsilon, sigma or std column with a finite value", run.model)
        return figure
    axes[0].set_xscale("log")
    values = np.concatenate([t[c] for c, _ in drawn])
    log_if_wide(axes[0], values[np.isfinite(values)])
    kind = "epsilon (privacy level)" if drawn[0][0].startswith(("eps", "rdp")) else "noise std (value units)"
    finish(axes[0], "number of nodes n", kind, f"{run.model}: guarantee against n")
    return figure


def draw_mf_factorize(run, ax=None, **_):
    """mf-factorize: the correlation matrix C as a heat map."""
    figure, axes = panels(ax, 1)
    c = np.asarray(run.array("C.npy"), dtype=float)
    image = axes[0].imshow(c, cmap="RdBu_r", vmin=-np.abs(c).max(), vmax=np.abs(c).max(), interpolation="nearest")
    figure.colorbar(image, ax=axes[0], label="C[i, j] (correlation weight)")
    summary = run.summary
    finish(axes[0], "noise index j (step)", "step i", f"mf-factorize: correlation C ({summary.get('correlation', '')}, "
           f"sensitivity {summary.get('sensitivity', float('nan')):.3g})", legend=False)
    return figure


def _attack_drawing(ax, run, roles, title, node_labels=False):
    """The graph with each node marked by its role: roles = [(mask, label, colour, marker)]; node_labels: each
    node's id written on it."""
    graph = run.graph()
    n = len(roles[0][0])
    if graph is None or graph[0] != n or n > MAX_DRAWN_NODES:
        xy = layout(n, np.zeros((0, 2), dtype=np.int64))
        edges_words = "edges not drawn: " + ("graph not rebuilt from its spec" if graph is None else "graph too large")
    else:
        xy = layout(n, graph[1])
        draw_edges(ax, xy, graph[1], label="graph edge")
        edges_words = "edges: " + graph[2]
    for mask, label, colour, marker in roles:
        if mask.any():
            ax.scatter(xy[mask, 0], xy[mask, 1], s=150 if node_labels else 60, c=colour, marker=marker, edgecolors="black",
                       linewidths=0.5, zorder=3, label=f"{label} ({int(mask.sum())})")
    if node_labels:
        for v, (x, y) in enumerate(xy):
            ax.annotate(str(v), (x, y), ha="center", va="center", fontsize=7, zorder=4)
    ax.set_aspect("equal")
    ax.margins(0.08)  # room for the markers of the outermost nodes
    ax.set_xticks([])
    ax.set_yticks([])
    finish(ax, "node positions: spring layout (no unit)", "", f"{title}\n({edges_words})")


def draw_attack_gossip(run, ax=None, node_labels=False, **_):
    """attack gossip: attackers, reconstructed and hidden nodes drawn on the graph (a set of attackers), or
    nodes reconstructed per attacker (--attackers all); with --sigma the victims' mu by distance."""
    privacy = run.has("privacy_by_distance.csv")
    figure, axes = panels(ax, 1 + privacy)
    steps = run.summary.get("steps", run.parameters.get("steps", "?"))
    if run.has("nodes.csv"):
        t = run.table("nodes.csv")
        attacker = t["attacker"] == 1
        found = (t["reconstructible"] == 1) & ~attacker
        roles = [(attacker, "attacker", "crimson", "s"), (found, "reconstructed by the attackers", "orange", "o"),
                 (~attacker & ~found, "hidden (not reconstructible)", "steelblue", "o")]
        _attack_drawing(axes[0], run, roles, f"attack gossip: what the attackers reconstruct after T = {steps}",
                        node_labels)
    else:
        t = run.table("attackers.csv")
        axes[0].bar(t["attacker"], t["reconstructed"], color="C1", label="nodes reconstructed (attacker included)")
        finish(axes[0], "attacker node", "nodes reconstructed (count)",
               f"attack gossip: nodes each single attacker reconstructs after T = {steps}")
    if privacy and len(axes) > 1:
        p = run.table("privacy_by_distance.csv")
        keep = np.isfinite(p["distance"])
        band(axes[1], p["distance"][keep], p["mu_mean"][keep], p["mu_min"][keep], p["mu_max"][keep],
             "mu of the victim: mean over pairs")
        finish(axes[1], "hop distance to the nearest attacker (edges)", "GDP mu (Delta / sigma units)",
               "attack gossip: Gaussian privacy mu by distance")
    return figure


def draw_attack_dgd(run, ax=None, node_labels=False, **_):
    """attack dgd: attackers, identified and unidentified targets on the graph; identifiable gradients and the
    estimates' error per step."""
    figure, axes = panels(ax, 2)
    t = run.table("nodes.csv")
    role = np.array(t["role"]) if isinstance(t["role"], list) else t["role"].astype(str)
    identified = np.isfinite(t["identifiable_after"]) & (role != "attacker")
    roles = [(role == "attacker", "attacker", "crimson", "s"),
             (identified, "gradient identified", "orange", "o"),
             ((role != "attacker") & ~identified, "not identified", "steelblue", "o")]
    _attack_drawing(axes[0], run, roles, f"attack dgd: gradients identified after T = {run.summary.get('steps', '?')}",
                    node_labels)
    if len(axes) > 1:
        it = run.table("iterations.csv")
        axes[1].plot(it["steps"], it["identifiable"], "o-", ms=3, label="identifiable targets (count)")
        finish(axes[1], "gradient steps observed t", "targets whose gradient is identifiable (count)",
               "attack dgd: identifiable gradients per step")
    return figure


DRAWERS = {"gossip-loss": draw_loss, "gossip-er-bound": draw_loss, "walk-loss": draw_loss, "mf-loss": draw_loss,
           "graph": draw_graph, "gossip-sim": draw_gossip_sim, "walk-sim": draw_walk_sim, "walk-sgd": draw_curves,
           "muffliato-gd": draw_curves, "muffliato-sgd": draw_curves, "mf-sgd": draw_curves, "admm": draw_curves,
           "bound": draw_bound, "mf-factorize": draw_mf_factorize, "attack gossip": draw_attack_gossip,
           "attack dgd": draw_attack_dgd, "demo": draw_demo, "study": draw_study}
