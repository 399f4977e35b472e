#!/usr/bin/env python3
"""The size rules of the developers' guide: no non-test Rust source file over 800 lines and no
function over 150 lines. Functions are found as rustfmt lays them out: a line starting (after its
indentation) with an optional `pub…`/`async`/`const`/`unsafe` and `fn name`, ending at the first
line holding only `}` at the same indentation. Exit 1 listing every violation."""
import re
import sys
from pathlib import Path

MAX_FILE, MAX_FN = 800, 150
FN = re.compile(r"^(\s*)(pub(\([^)]*\))?\s+)?((const|async|unsafe|extern \"C\")\s+)*fn\s+(\w+)")


def is_test(path: Path) -> bool:
    parts = path.parts
    return "tests" in parts or path.name in ("tests.rs",) or "benches" in parts


def functions(lines):
    """(name, first line, length) of every function with a body."""
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        indent = m.group(1)
        # A declaration without a body (trait method) ends with `;` before any `{`.
        j = i
        while j < len(lines) and "{" not in lines[j] and not lines[j].rstrip().endswith(";"):
            j += 1
        if j >= len(lines) or "{" not in lines[j]:
            continue
        if lines[j].rstrip().endswith("}") and j == i:
            yield m.group(6), i + 1, 1
            continue
        for k in range(j, len(lines)):
            if lines[k].rstrip() == indent + "}":
                yield m.group(6), i + 1, k - i + 1
                break


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    bad = []
    for path in sorted(root.glob("crates/**/*.rs")) + sorted(root.glob("fuzz/**/*.rs")):
        if "target" in path.parts or is_test(path.relative_to(root)):
            continue
        lines = path.read_text().splitlines()
        rel = path.relative_to(root)
        if len(lines) > MAX_FILE:
            bad.append(f"{rel}: {len(lines)} lines (at most {MAX_FILE})")
        in_tests = None
        for i, line in enumerate(lines):
            if line.startswith("#[cfg(test)]") and lines[i + 1 : i + 2] and lines[i + 1].startswith("mod "):
                in_tests = i
                break
        for name, first, n in functions(lines):
            if in_tests is not None and first > in_tests:
                continue
            if n > MAX_FN:
                bad.append(f"{rel}:{first}: fn {name} is {n} lines (at most {MAX_FN})")
    for b in bad:
        print(b)
    if bad:
        return 1
    print("sizes ok: no source file over 800 lines, no function over 150")
    return 0


if __name__ == "__main__":
    sys.exit(main())
