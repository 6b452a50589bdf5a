#!/usr/bin/env python3
"""Fills corpus/<target>/ with seed inputs: the compiler's seed programs and
every kernel source literal of the execution tests."""
import hashlib
import pathlib
import re

root = pathlib.Path(__file__).resolve().parent.parent
here = root / "fuzz"
sources = [p.read_text() for p in sorted((root / "compiler/tests/seeds").glob("*.cl"))]
for test in sorted((root / "icd/tests").glob("*.rs")):
    for lit in re.findall(r'r#"(.*?)"#', test.read_text(), re.S):
        if "kernel" in lit:
            sources.append(lit)

options = [
    "", "-cl-std=CL1.2", "-cl-std=CL2.0", "-cl-std=CL3.0", "-DN=7", "-D N=3 -DX",
    "-cl-fast-relaxed-math", "-cl-mad-enable -cl-no-signed-zeros", "-w", "-Werror",
    "-cl-finite-math-only -cl-unsafe-math-optimizations", "-I /tmp -cl-opt-disable",
    "-cl-kernel-arg-info", "-cl-denorms-are-zero", "-cl-single-precision-constant",
    "-cl-std=CL3.0 -DN=2 -cl-fast-relaxed-math", "-cl-std=CL1.1", "-cl-std=CL9.9",
    "-Dfoo(x)=x", "-cl-strict-aliasing -cl-uniform-work-group-size",
]


def put(target, data):
    d = here / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data.encode()).hexdigest()).write_text(data)


for s in sources:
    put("compile_source", s)
for o in options:
    put("compile_options", o + "\n")
for o, s in zip(options * 8, sources[:len(options) * 8]):
    put("compile_options", o + "\n" + s)
print(len(sources), "sources,", len(options), "option strings")
