#!/usr/bin/env python3
"""Fails when a build of vzplan-python alone (what `maturin develop` and `maturin build` run)
resolves a dependency with other features than the workspace's test build: such a dependency, and
every crate above it, would be compiled twice. Fix: add the features to
crates/vzplan-workspace-hack/Cargo.toml."""

import subprocess
import sys


def features(*args: str) -> dict[str, set[str]]:
    out = subprocess.run(["cargo", "tree", "--prefix", "none", "-f", "{p}|{f}", *args],
                         capture_output=True, text=True, check=True).stdout
    found: dict[str, set[str]] = {}
    for line in out.splitlines():
        if "|" not in line:
            continue
        pkg, feats = line.split("|", 1)
        name = " ".join(pkg.split()[:2])
        feats = feats.replace("(*)", "").replace("(proc-macro)", "").strip()
        found.setdefault(name, set()).update(f for f in feats.split(",") if f)
    return found


alone = features("-p", "vzplan-python", "-e", "normal,build")
workspace = features("--workspace", "-e", "normal,build,dev")
differ = {k: sorted(workspace[k] - v) for k, v in alone.items() if k in workspace and workspace[k] != v}
if differ:
    for k, extra in sorted(differ.items()):
        print(f"check_features: {k}: the workspace build adds {', '.join(extra)}", file=sys.stderr)
    sys.exit("check_features: add these to crates/vzplan-workspace-hack/Cargo.toml")
print(f"features ok: vzplan-python alone resolves its {len(alone)} crates as the workspace does")
