"""Type stub of the netdp package, written by `python -m netdp._stubgen` from the model registry: do not edit
(docs/python.md "Signatures and stubs")."""

import os
from typing import Hashable, Literal

import numpy

from . import _netdp as _netdp
from ._accountant import ComposedEvent as ComposedEvent
from ._accountant import GaussianEvent as GaussianEvent
from ._accountant import GaussianViewEvent as GaussianViewEvent
from ._accountant import LaplaceEvent as LaplaceEvent
from ._accountant import PairwiseAccountant as PairwiseAccountant
from ._accountant import PoissonSampledGaussianEvent as PoissonSampledGaussianEvent
from ._accountant import SelfComposedEvent as SelfComposedEvent
from ._accountant import WalkViewEvent as WalkViewEvent
from ._accountant import gdp_delta as gdp_delta
from ._accountant import gdp_epsilon as gdp_epsilon
from ._accountant import gdp_log_delta as gdp_log_delta
from ._accountant import laplace_rdp as laplace_rdp
from ._models import MODELS as MODELS
from ._models import NetdpWarning as NetdpWarning
from ._models import model_functions as model_functions
from ._models import python_name as python_name
from ._result import Result as Result
from ._result import read_csv as read_csv
from ._study import StudyResult as StudyResult
from ._study import run_study as run_study
from ._study import study_toml as study_toml
from ._stubtypes import GraphLike as GraphLike
from ._stubtypes import WeightsLike as WeightsLike
from ._stubtypes import Node as Node
from ._stubtypes import Progress as Progress
from ._stubtypes import OutDir as OutDir
from ._stubtypes import InvalidParameter as InvalidParameter
from ._stubtypes import DeviceUnavailable as DeviceUnavailable

__version__: str
models: list[str]

__all__ = ['models', 'Result', 'StudyResult', 'run_study', 'study_toml', 'read_csv', 'InvalidParameter', 'DeviceUnavailable', 'NetdpWarning', 'GraphLike', 'WeightsLike', 'Node', 'Progress', 'OutDir', 'python_name', 'MODELS', 'PairwiseAccountant', 'GaussianEvent', 'LaplaceEvent', 'PoissonSampledGaussianEvent', 'SelfComposedEvent', 'ComposedEvent', 'GaussianViewEvent', 'WalkViewEvent', 'gdp_epsilon', 'gdp_delta', 'gdp_log_delta', 'laplace_rdp', 'graph', 'gossip_loss', 'gossip_er_bound', 'walk_loss', 'bound_complete_sum', 'bound_complete_histogram', 'bound_ring_sum', 'bound_ring_histogram', 'bound_sgd_rdp', 'bound_sgd_closed_form', 'bound_sgd_sigma', 'gossip_sim', 'muffliato_gd', 'walk_sim', 'walk_sgd', 'muffliato_sgd', 'mf_loss', 'mf_factorize', 'mf_sgd', 'admm', 'attack_gossip', 'attack_dgd']

def graph(graph: GraphLike, *, weights: WeightsLike = 'metropolis', sigma: float = 1.0, eigenvalues: bool = False, diameter_limit: int = 2000000000, out: OutDir = None, progress: Progress = False) -> Result:
    """build or load a graph; write its edge list and statistics"""

def gossip_loss(graph: GraphLike, *, weights: WeightsLike = 'metropolis', alpha: float = 2.0, sigma: float = 1.0, steps: int | Literal['auto'] = 'auto', gap: Literal['second', 'abs'] = 'second', source: Hashable | None = None, device: str = 'auto', tile_sources: int = 0, memory_limit: float = 0.0, threads: int = 0, no_matrix: bool = False, diagonal: Literal['zero', 'local'] = 'zero', accounting: Literal['exact', 'theorem'] = 'exact', observer_knows: Literal['input', 'input-and-noise'] = 'input-and-noise', delta: float | None = None, sensitivity: float = 1.0, t_start: int = 0, cap: Literal['ldp', 'none'] = 'ldp', propagation: Literal['auto', 'sparse', 'dense'] = 'auto', out: OutDir = None, progress: Progress = False) -> Result:
    """pairwise Renyi loss f(u, v) of private gossip averaging (Muffliato, Thm 6.1) on a graph"""

def gossip_er_bound(graph: GraphLike, *, steps: int, q: float | None = None, er_c: float | None = None, alpha: float = 2.0, sigma: float = 1.0, sensitivity: float = 1.0, variant: Literal['theorem', 'reference-code'] = 'theorem', source: Hashable | None = None, diagonal: Literal['zero', 'local'] = 'zero', no_matrix: bool = False, threads: int = 0, out: OutDir = None, progress: Progress = False) -> Result:
    """Theorem 6.6 on a given graph: pairwise loss bound of Muffliato on a private Erdos-Renyi graph G(n, q) (docs/math.md §6.4), the reference code's per-graph bound"""

def walk_loss(graph: GraphLike, *, weights: WeightsLike = 'metropolis', alpha: float = 2.0, noise_multiplier: float = 1.0, steps: int | Literal['auto'] = 'auto', gap: Literal['second', 'abs'] = 'second', source: Hashable | None = None, device: str = 'auto', tile_sources: int = 0, memory_limit: float = 0.0, threads: int = 0, no_matrix: bool = False, diagonal: Literal['zero', 'local'] = 'zero', method: Literal['spectral', 'finite', 'series'] = 'spectral', solver: Literal['auto', 'eigen', 'chebyshev'] = 'auto', tolerance: float = 1e-12, sender: Literal['anonymous', 'known'] = 'anonymous', contributions: float = 0.0, clip: bool = False, colluders: int = 0, target_mean_loss: float = 0.0, target_statistic: Literal['max-observer', 'all-pairs'] = 'max-observer', condition: Literal['stated', 'exact'] = 'stated', out: OutDir = None, progress: Progress = False) -> Result:
    """pairwise Renyi loss eps(u -> v) of random-walk DP-SGD on a graph (Thm 7.7, Lemma D.17)"""

def bound_complete_sum(*, n: list[float] | None = None, n_logspace: list[float] | None = None, n_round: Literal['none', 'nearest', 'floor', 'ceil'] = 'none', skip_invalid: bool = False, steps: float | None = None, steps_per_node: float = 100.0, delta_prime: float = 1e-07, delta_hat: float = 1e-07, contributions: Literal['chernoff', 'fixed'] = 'chernoff', nv_formula: Literal['proof', 'code', 'code_quirk'] = 'proof', composition: Literal['optimal_min', 'optimal-min', 'advanced', 'simple'] = 'optimal_min', colluders: int = 1, sender_known: bool = False, delta_tilde: float = 1e-07, analysis: Literal['thesis', 'preprint'] = 'thesis', c: float = 0.0, eps0: float = 0.1, delta: float = 1e-07, cycle_bound: Literal['closed', 'exact_max'] = 'closed', delta_cycle: Literal['assume_delta', 'k_delta', 'group_privacy', 'exact_gaussian'] = 'assume_delta', out: OutDir = None, progress: Progress = False) -> Result:
    """real summation by a random walk on the complete graph (4.1, Thm 7.1 / [S2] Thm 3) and its LDP analogue; T = 100 n by default"""

def bound_complete_histogram(*, n: list[float] | None = None, n_logspace: list[float] | None = None, n_round: Literal['none', 'nearest', 'floor', 'ceil'] = 'none', skip_invalid: bool = False, steps: float | None = None, steps_per_node: float = 100.0, delta_prime: float = 1e-07, delta_hat: float = 1e-07, contributions: Literal['chernoff', 'fixed'] = 'chernoff', nv_formula: Literal['proof', 'code', 'code_quirk'] = 'proof', composition: Literal['optimal_min', 'optimal-min', 'advanced', 'simple'] = 'optimal_min', colluders: int = 1, sender_known: bool = False, delta_tilde: float = 1e-07, analysis: Literal['closed', 'numerical', 'preprint'] = 'numerical', eps0: float = 0.5, delta: float = 1e-07, categories: int = 2, out: OutDir = None, progress: Progress = False) -> Result:
    """histograms (RR_gamma contributions) by a random walk on the complete graph (4.2, Thm D.1 / [S2] Thm 6); T = 100 n by default"""

def bound_ring_sum(*, n: list[float] | None = None, n_logspace: list[float] | None = None, n_round: Literal['none', 'nearest', 'floor', 'ceil'] = 'none', skip_invalid: bool = False, turns: int = 1, delta: float = 1e-06, delta_prime: float = 1e-06, composition: Literal['optimal_min', 'optimal-min', 'advanced', 'simple'] = 'advanced', colluders: int = 1, eps0: float = 1.0, sensitivity: float = 1.0, out: OutDir = None, progress: Progress = False) -> Result:
    """real summation by a token on a directed ring, K turns (3.1, Thm 5.5)"""

def bound_ring_histogram(*, n: list[float] | None = None, n_logspace: list[float] | None = None, n_round: Literal['none', 'nearest', 'floor', 'ceil'] = 'none', skip_invalid: bool = False, turns: int = 1, delta: float = 1e-06, delta_prime: float = 1e-06, composition: Literal['optimal_min', 'optimal-min', 'advanced', 'simple'] = 'advanced', colluders: int = 1, eps0: float = 0.25, categories: int = 2, gamma: Literal['corrected', 'literal'] = 'corrected', out: OutDir = None, progress: Progress = False) -> Result:
    """histograms by a token on a directed ring, K turns (3.2, Thm 5.7)"""

def bound_sgd_rdp(*, n: list[float] | None = None, n_logspace: list[float] | None = None, n_round: Literal['none', 'nearest', 'floor', 'ceil'] = 'none', skip_invalid: bool = False, steps: float | None = None, steps_per_node: float = 10.0, delta_prime: float = 1e-06, delta_hat: float = 1e-06, contributions: Literal['chernoff', 'fixed'] = 'chernoff', nv_formula: Literal['proof', 'code', 'code_quirk'] = 'proof', composition: Literal['optimal_min', 'optimal-min', 'advanced', 'simple'] = 'optimal_min', colluders: int = 1, sender_known: bool = False, delta_tilde: float = 1e-06, lipschitz: float = 1.0, delta: float = 1e-06, eps0: float = 1.0, sigma: float = 0.0, alpha: float = 2.0, slope_factor: float = 4.0, horizon: Literal['infinite', 'finite'] = 'infinite', out: OutDir = None, progress: Progress = False) -> Result:
    """network RDP of random-walk DP-SGD on the complete graph (4.3.1, Prop D.11) and its (eps, delta) conversion; T = 10 n by default"""

def bound_sgd_closed_form(*, n: list[float] | None = None, n_logspace: list[float] | None = None, n_round: Literal['none', 'nearest', 'floor', 'ceil'] = 'none', skip_invalid: bool = False, steps: float | None = None, steps_per_node: float = 10.0, delta_prime: float = 1e-06, delta_hat: float = 1e-06, contributions: Literal['chernoff', 'fixed'] = 'chernoff', nv_formula: Literal['proof', 'code', 'code_quirk'] = 'proof', composition: Literal['optimal_min', 'optimal-min', 'advanced', 'simple'] = 'optimal_min', colluders: int = 1, sender_known: bool = False, delta_tilde: float = 1e-06, lipschitz: float = 1.0, delta: float = 1e-06, eps0: float = 0.5, out: OutDir = None, progress: Progress = False) -> Result:
    """Thm 7.2 closed form for random-walk DP-SGD on the complete graph (4.3.2); T = 10 n by default"""

def bound_sgd_sigma(*, n: list[float] | None = None, n_logspace: list[float] | None = None, n_round: Literal['none', 'nearest', 'floor', 'ceil'] = 'none', skip_invalid: bool = False, steps: float | None = None, steps_per_node: float = 10.0, delta_prime: float = 1e-06, delta_hat: float = 1e-06, contributions: Literal['chernoff', 'fixed'] = 'chernoff', nv_formula: Literal['proof', 'code', 'code_quirk'] = 'proof', composition: Literal['optimal_min', 'optimal-min', 'advanced', 'simple'] = 'optimal_min', colluders: int = 1, sender_known: bool = False, delta_tilde: float = 1e-06, lipschitz: float = 0.4, delta: float = 1e-06, epsilon: float = 1.0, procedure: Literal['thesis', 'code'] = 'thesis', slope_factor: float = 0.0, cap_factor: float = 1.2, central_constant: float = 1.25, out: OutDir = None, progress: Progress = False) -> Result:
    """smallest noise std for local, central and network DP-SGD at a target (eps, delta) (4.3.3, Remark D.12); T = 10 n by default"""

def gossip_sim(graph: GraphLike, *, weights: WeightsLike = 'metropolis', protocol: Literal['sync', 'accelerated', 'randomized', 'er-per-round', 'dropout', 'dropout-er', 'sequence'] = 'sync', sequence: str | None = None, steps: int | Literal['auto'], runs: int = 1, dim: int = 1, sigma: float = 1.0, clip_start: bool = False, seed: int = 0, init: str = 'zero', er_c: float = 1.0, er_p: float | None = None, dropout: float = 0.0, target: float | None = None, gap: Literal['second', 'abs'] = 'second', record_every: int = 1, batch_runs: int = 0, device: str = 'auto', memory_limit: float = 0.0, threads: int = 0, privacy: bool = False, accounting: Literal['exact', 'theorem'] = 'exact', observer_knows: Literal['input', 'input-and-noise'] = 'input-and-noise', alpha: float = 2.0, sensitivity: float = 1.0, t_start: int = 0, cap: Literal['ldp', 'none'] = 'ldp', source: Hashable | None = None, quantiles: list[float] | None = None, stop_at: str | None = None, out: OutDir = None, progress: Progress = False) -> Result:
    """Monte Carlo runs of private gossip averaging (Muffliato, Alg 6.1 / 6.2): error to the true average per round, over runs, next to Thm 6.2 / 6.4"""

def muffliato_gd(graph: GraphLike, *, weights: WeightsLike = 'metropolis', objective: Literal['quadratic', 'least-squares', 'logistic'] = 'quadratic', data: str | None = None, dim: int | None = None, samples: int | None = None, steps: int, gossip_rounds: int, averaging: Literal['gossip', 'exact'] = 'gossip', step_size: float = 0.1, gradient_noise: float = 0.0, runs: int = 1, seed: int = 0, er_c: float | None = None, batch: int = 0, clip: float = 0.0, l2: float = 0.0, reference_code: bool = False, alpha: float = 2.0, sensitivity: float | None = None, source: Hashable | None = None, cap: Literal['ldp', 'none'] = 'ldp', accounting: Literal['exact', 'ldp', 'theorem'] | None = None, delta: float | None = None, no_cap: bool = False, gap: Literal['second', 'abs'] = 'second', device: str = 'auto', memory_limit: float = 0.0, threads: int = 0, out: OutDir = None, progress: Progress = False) -> Result:
    """Muffliato-GD / SGD (Alg 6.3): local gradient steps, Gaussian noise, K accelerated gossip steps; utility curves over runs and privacy (exact for linear runs, else LDP; Thm 6.9 / C.9 on request)"""

def walk_sim(graph: GraphLike, *, weights: WeightsLike = 'auto', steps: int, runs: int, seed: int = 0, eps0: float = 0.1, delta: float = 1e-07, mechanism: Literal['gaussian', 'histogram'] = 'gaussian', view: Literal['known', 'hidden'] = 'known', bookkeeping: Literal['definition', 'reference'] = 'definition', start: str = 'node:0', quantiles: list[float] = [0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99], no_accounting: bool = False, statistics: Literal['auto', 'full', 'visits'] = 'auto', save_paths: bool = False, batch_runs: int = 0, threads: int = 0, device: str = 'auto', out: OutDir = None, progress: Progress = False) -> Result:
    """Monte Carlo token walks with the empirical pairwise privacy accounting of Fig. 7.1b (docs/math.md 4.1.3), visit / return-time statistics and the utility of private summation"""

def walk_sgd(graph: GraphLike, *, weights: WeightsLike = 'auto', variant: Literal['centralized', 'local', 'network'] = 'network', epsilon: float = 1.0, delta: float = 1e-06, steps: int = 20000, runs: int = 1, step_size: float = 0.0, clip: float = 0.4, clip_order: Literal['per-example', 'after-noise'] = 'after-noise', sigma: float | None = None, cap: int | Literal['auto'] = 'auto', procedure: Literal['code', 'thesis'] = 'code', slope_factor: float = 0.0, cap_factor: float = 1.2, central_constant: float = 1.25, objective: Literal['logistic', 'least-squares', 'quadratic'] = 'logistic', l2: float = 0.0, batch: int = 0, after_cap: Literal['variant', 'noise', 'forward'] = 'variant', loss_contributions: Literal['expected', 'cap'] = 'expected', loss_method: Literal['spectral', 'finite'] = 'spectral', node_data: Literal['rows', 'coordinates', 'shuffled-coordinates'] = 'rows', distance_quantiles: int = 10, initial_estimate: Literal['zero', 'local'] = 'zero', seed: int = 0, eval_every: int | None = None, threads: int = 0, data: str | None = None, synthetic_rows: int = 20640, synthetic_dim: int = 8, test_fraction: float = 0.2, no_intercept: bool = False, data_seed: int = 0, synthetic_separation: float = 0.0, target_mean_loss: float = 0.0, alpha: float = 2.0, target_statistic: Literal['max-observer', 'all-pairs'] = 'max-observer', sensitivity: float = 0.0, out: OutDir = None, progress: Progress = False) -> Result:
    """random-walk DP-SGD (Alg 7.2 / 7.3): one token carries the model along a walk, clipped noisy local steps; centralized, local or network noise calibrated to (epsilon, delta)"""

def muffliato_sgd(graph: GraphLike, *, weights: WeightsLike = 'metropolis', steps: int = 10, gossip_steps: int | Literal['auto'] = 'auto', step_size: float = 0.7, clip: float = 0.4, clip_order: Literal['per-example', 'after-noise'] = 'per-example', sigma: float | None = None, composition: Literal['participations', 'squared'] = 'participations', objective: Literal['logistic', 'least-squares', 'quadratic'] = 'logistic', l2: float = 0.0, batch: int = 0, runs: int = 1, gap: Literal['second', 'abs'] = 'second', seed: int = 0, threads: int = 0, data: str | None = None, synthetic_rows: int = 20640, synthetic_dim: int = 8, test_fraction: float = 0.2, no_intercept: bool = False, data_seed: int = 0, synthetic_separation: float = 0.0, target_mean_loss: float = 0.0, alpha: float = 2.0, target_statistic: Literal['max-observer', 'all-pairs'] = 'max-observer', sensitivity: float = 0.0, out: OutDir = None, progress: Progress = False) -> Result:
    """Muffliato-SGD (Alg 6.3) on the learning data of walk-sgd, noise calibrated to a target mean privacy loss (eq. 6.4): the gossip side of Table 7.1"""

def mf_loss(graph: GraphLike | None = None, *, weights: WeightsLike = 'average', steps: int = 10, participation: str = 'every', correlation: str = 'ldp', symmetric_toeplitz: bool = False, band: int = 0, surrogate: Literal['exact', 'code'] = 'exact', max_iterations: int = 10000, trust: Literal['ldp', 'pndp', 'observation', 'secldp'] = 'pndp', secret_ratio: float = 1.0, attackers: str = 'all', alpha: float = 2.0, noise_multiplier: float = 1.0, delta: float | None = None, conversion: Literal['gdp', 'rdp', 'rdp-classic'] = 'gdp', baseline: Literal['none', 'muffliato'] = 'none', observation_b: str | None = None, observation_c: str | None = None, observation_a: str | None = None, observation_pi: str | None = None, threads: int = 0, out: OutDir = None, progress: Progress = False) -> Result:
    """pairwise sensitivities and Renyi losses of correlated-noise D-SGD (MF-D-SGD) under a trust model"""

def mf_factorize(graph: GraphLike | None = None, *, weights: WeightsLike = 'average', steps: int = 10, participation: str = 'every', correlation: str = 'ldp', symmetric_toeplitz: bool = False, band: int = 0, surrogate: Literal['exact', 'code'] = 'exact', max_iterations: int = 10000, threads: int = 0, out: OutDir = None, progress: Progress = False) -> Result:
    """build or optimise a noise correlation C (MAFALDA, D-MF, SR, ...) and report its sensitivity and workload losses"""

def mf_sgd(graph: GraphLike, *, weights: WeightsLike = 'average', steps: int = 10, participation: str = 'every', correlation: str = 'ldp', symmetric_toeplitz: bool = False, band: int = 0, surrogate: Literal['exact', 'code'] = 'exact', max_iterations: int = 10000, objective: Literal['least-squares', 'logistic', 'quadratic'] = 'least-squares', step_size: float = 0.1, clip: float = 1.0, noise_multiplier: float = 1.0, l2: float = 0.0, runs: int = 5, seed: int = 0, data: str | None = None, synthetic_rows: int = 4000, synthetic_dim: int = 8, test_fraction: float = 0.2, no_intercept: bool = False, data_seed: int = 0, synthetic_separation: float = 0.0, eval_every: int | None = None, alpha: float = 2.0, delta: float = 1e-06, threads: int = 0, out: OutDir = None, progress: Progress = False) -> Result:
    """MF-D-SGD (Algorithm 1): local SGD steps with correlated noise C^-1 Z, then gossip; utility over runs and the privacy of the factorization"""

def admm(*, setting: Literal['centralized', 'federated', 'walk'] = 'centralized', epsilon: float = 1.0, delta: float = 1e-06, sigma: float | None = None, steps: int = 100, runs: int = 1, users: int = 100, sampled: int | Literal['auto'] = 'auto', step_size: float = 0.0, relaxation: float = 0.5, prox_scale: Literal['weighted', 'unweighted'] = 'weighted', lipschitz: float = 0.0, subsampling_constant: float = 32.0, conversion: Literal['improved', 'classic'] = 'improved', objective: Literal['logistic', 'least-squares', 'quadratic'] = 'logistic', l2: float = 0.01, newton_steps: int = 3, seed: int = 0, data: str | None = None, synthetic_rows: int = 20640, synthetic_dim: int = 8, test_fraction: float = 0.2, no_intercept: bool = False, data_seed: int = 0, synthetic_separation: float = 0.0, eval_every: int | None = None, threads: int = 0, out: OutDir = None, progress: Progress = False) -> Result:
    """private consensus ADMM (Alg 8.1-8.4): noisy Douglas-Rachford blocks, centralized, federated or random-walk, noise calibrated to (epsilon, delta) by Thm 8.7 / E.9 / 8.12"""

def attack_gossip(graph: GraphLike, *, weights: WeightsLike = 'metropolis', attackers: str = '0', steps: int, method: Literal['exact', 'float'] = 'exact', secagg: bool = False, dynamic: float = 0.0, seed: int = 0, no_float_check: bool = False, centralities: bool = False, sigma: float | None = None, delta: float | None = None, sensitivity: float = 1.0, threads: int = 0, out: OutDir = None, progress: Progress = False) -> Result:
    """reconstruction attack on gossip averaging: which private values curious nodes determine exactly (docs/math.md §7.1-7.2)"""

def attack_dgd(graph: GraphLike, *, weights: WeightsLike = 'metropolis', attackers: str = '0', steps: int, gossip_rounds: int = 1, objective: Literal['assumption', 'quadratic', 'least-squares'] = 'assumption', data: str | None = None, dim: int = 1, samples: int = 1, step_size: float = 0.1, sigma: float = 0.0, init: Literal['optimum', 'zero', 'random'] = 'optimum', runs: int = 1, seed: int = 0, out: OutDir = None, progress: Progress = False) -> Result:
    """reconstruction attack on decentralized gradient descent: OLS/GLS estimates of every target's gradient (docs/math.md §7.3)"""
