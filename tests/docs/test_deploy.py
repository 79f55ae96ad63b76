"""The deployment examples (``examples/deploy/``) checked against each other and against
the real command line and config reader: a systemd unit, and Kubernetes manifests with
their Dockerfile.  docs/how-to/systemd.md and docs/how-to/kubernetes.md show them."""

from __future__ import annotations

import configparser
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ringleader.cli._parser import build_parser
from ringleader.service import NodeOptions
from ringleader.topologies import Config, load_config
from tests.paths import ROOT

DEPLOY = ROOT / "examples" / "deploy"
SYSTEMD = DEPLOY / "systemd"
KUBERNETES = DEPLOY / "kubernetes"
#: Where the examples put the config, on the machine and in the pod.
ETC = "/etc/ringleader"
#: The probes a pod is checked with, on its metrics port.
PROBES = {"livenessProbe": "/healthz", "readinessProbe": "/readyz"}


def _node_command(words: list[str]) -> Any:
    """``ringleader node …`` (after the program's path) read by the real parser."""
    assert Path(words[0]).name == "ringleader", words
    args = build_parser().parse_args(words[1:])
    assert args.command == "node", words
    return args


def _port(address: str) -> int:
    return int(address.rpartition(":")[2])


# -- systemd --------------------------------------------------------------------------------


def _unit() -> configparser.ConfigParser:
    unit = configparser.ConfigParser(strict=True, interpolation=None, delimiters=("=",))
    unit.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    unit.read_string((SYSTEMD / "ringleader@.service").read_text(encoding="utf-8"))
    return unit


def test_the_unit_runs_a_node_of_its_config_keeping_state_in_its_state_directory() -> None:
    service = _unit()["Service"]
    words = shlex.split(service["ExecStart"].replace("%i", "2"))  # ringleader@2
    args = _node_command(words)
    assert Path(args.config).parent == Path(ETC)
    config = load_config(SYSTEMD / Path(args.config).name)
    assert args.node_id == 2 and args.node_id in [n.id for n in config.nodes]
    assert not args.json and not args.supervised and not args.fresh_state
    # its state where systemd keeps the StateDirectory, private to the service's user
    assert config.state_dir == Path("/var/lib") / service["StateDirectory"]
    assert service["StateDirectoryMode"] == "0700"
    # metrics on every interface, at a fixed port
    assert NodeOptions(metrics=args.metrics).metrics_at == ("0.0.0.0", 9100)
    # the secret from a root-only environment file, not the config
    assert config.secret_file is None
    assert service["EnvironmentFile"] == f"{ETC}/secret.env"


def test_the_unit_stops_with_sigterm_and_restarts_on_failure_but_not_on_a_bad_config() -> None:
    service = _unit()["Service"]
    assert service["KillSignal"] == "SIGTERM"  # ringleader node's clean stop: it hands over
    assert 5 <= int(service["TimeoutStopSec"]) <= 30
    assert service["Restart"] == "on-failure"
    assert service["RestartPreventExitStatus"] == "2"  # a bad config or state file: exit 2
    assert "network-online.target" in _unit()["Unit"]["After"]


def test_every_node_of_the_unit_config_binds_every_interface_and_is_dialled_at_its_machine() -> (
    None
):
    config = load_config(SYSTEMD / "cluster.toml")
    for node in config.nodes:
        assert node.address == "tcp://0.0.0.0:7001"
        assert node.advertise is not None and _port(node.advertise) == 7001


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_reads_the_unit_without_a_complaint(tmp_path: Path) -> None:
    ringleader = str(Path(sys.executable).parent / "ringleader")  # this venv's
    text = (SYSTEMD / "ringleader@.service").read_text(encoding="utf-8")
    executable = shlex.split(_unit()["Service"]["ExecStart"])[0]
    unit = tmp_path / "ringleader@1.service"
    unit.write_text(text.replace(executable, ringleader), encoding="utf-8")  # here, it exists
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "ringleader@1.service" not in result.stderr, result.stderr  # not even a warning


# -- Kubernetes -----------------------------------------------------------------------------


def _manifest(name: str) -> dict[str, Any]:
    (document,) = yaml.safe_load_all((KUBERNETES / name).read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    return document


def _pod() -> dict[str, Any]:
    return _manifest("statefulset.yaml")["spec"]["template"]  # type: ignore[no-any-return]


def _container() -> dict[str, Any]:
    (container,) = _pod()["spec"]["containers"]
    return container  # type: ignore[no-any-return]


def _pod_command(ordinal: int) -> Any:
    """The container's command, as its shell runs it in pod ``ringleader-ORDINAL``."""
    shell, flag, script = _container()["command"]
    assert (shell, flag) == ("sh", "-c")
    assert script.startswith("exec ")
    words = shlex.split(script.replace('"${HOSTNAME##*-}"', str(ordinal)))
    return _node_command(words[1:])


def _config() -> Config:
    return load_config(KUBERNETES / "cluster.toml")


def test_the_manifests_are_kubernetes_objects() -> None:
    kinds = {
        name: (_manifest(name)["apiVersion"], _manifest(name)["kind"])
        for name in ("service.yaml", "statefulset.yaml", "pdb.yaml")
    }
    assert kinds == {
        "service.yaml": ("v1", "Service"),
        "statefulset.yaml": ("apps/v1", "StatefulSet"),
        "pdb.yaml": ("policy/v1", "PodDisruptionBudget"),
    }


def test_pod_n_runs_node_n_advertised_at_its_stable_dns_name() -> None:
    config, sts, service = _config(), _manifest("statefulset.yaml"), _manifest("service.yaml")
    name, headless = sts["metadata"]["name"], service["metadata"]["name"]
    assert sts["spec"]["serviceName"] == headless
    assert service["spec"]["clusterIP"] == "None"  # headless: a DNS name per pod
    # DNS names before the pods are ready (ready needs a leader, which needs the names)
    assert service["spec"]["publishNotReadyAddresses"] is True
    assert sts["spec"]["podManagementPolicy"] == "Parallel"  # same reason
    replicas = sts["spec"]["replicas"]
    assert [n.id for n in config.nodes] == list(range(replicas))
    election = {p["name"]: p["containerPort"] for p in _container()["ports"]}["election"]
    for ordinal, node in enumerate(config.nodes):
        args = _pod_command(ordinal)
        assert args.node_id == node.id
        assert Path(args.config) == Path(ETC) / "cluster.toml"
        assert node.address == f"tcp://0.0.0.0:{election}"
        assert node.advertise == f"tcp://{name}-{ordinal}.{headless}:{election}"


def test_the_ports_probes_and_service_agree_with_the_node_command() -> None:
    container, service = _container(), _manifest("service.yaml")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    host, metrics = NodeOptions(metrics=_pod_command(0).metrics).metrics_at or ("", 0)
    assert (host, ports["metrics"]) == ("0.0.0.0", metrics)
    assert {p["name"]: (p["port"], p["targetPort"]) for p in service["spec"]["ports"]} == {
        "election": (ports["election"], "election"),
        "metrics": (metrics, "metrics"),
    }
    for probe, path in PROBES.items():
        assert container[probe]["httpGet"] == {"path": path, "port": "metrics"}
    labels = _pod()["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()


def test_state_lives_on_a_persistent_volume_at_the_config_state_dir() -> None:
    sts, config = _manifest("statefulset.yaml"), _config()
    (claim,) = sts["spec"]["volumeClaimTemplates"]
    mounts = {m["name"]: m["mountPath"] for m in _container()["volumeMounts"]}
    assert Path(mounts[claim["metadata"]["name"]]) == config.state_dir
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert Path(mounts["config"]) == Path(ETC)
    volumes = {v["name"]: v for v in _pod()["spec"]["volumes"]}
    assert volumes["config"]["configMap"]["name"] == sts["metadata"]["name"]


def test_the_secret_comes_from_a_kubernetes_secret_and_the_pod_stops_cleanly() -> None:
    env = {e["name"]: e for e in _container()["env"]}
    assert env["RINGLEADER_SECRET"]["valueFrom"]["secretKeyRef"] == {
        "name": "ringleader",
        "key": "secret",
    }
    assert _config().secret_file is None
    assert 5 <= _pod()["spec"]["terminationGracePeriodSeconds"] <= 30


def test_the_disruption_budget_takes_one_pod_at_a_time() -> None:
    pdb = _manifest("pdb.yaml")
    assert pdb["spec"]["maxUnavailable"] == 1
    assert pdb["spec"]["selector"]["matchLabels"].items() <= _pod()["metadata"]["labels"].items()
    # one of three down leaves a majority: a leader keeps (or gets) its lease
    replicas = _manifest("statefulset.yaml")["spec"]["replicas"]
    assert replicas - 1 > replicas // 2


def test_the_image_is_the_readme_install_running_as_the_pod_user() -> None:
    lines = (KUBERNETES / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    instructions = re.findall(r"^([A-Z]+) (.*)$", lines, flags=re.MULTILINE)
    by: dict[str, list[str]] = {}
    for word, rest in instructions:
        by.setdefault(word, []).append(rest)
    assert any("python3 -m venv" in r and "pip install" in r for r in by["RUN"])
    (user,) = by["USER"]
    assert int(user) == _pod()["spec"]["securityContext"]["runAsUser"]
    (exposed,) = by["EXPOSE"]
    ports = {p["name"]: p["containerPort"] for p in _container()["ports"]}
    assert sorted(int(p) for p in exposed.split()) == sorted(ports.values())
    assert by["STOPSIGNAL"] == ["SIGTERM"]
    assert (KUBERNETES / "Dockerfile.dockerignore").read_text(encoding="utf-8").count(".venv")
