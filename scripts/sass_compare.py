#!/usr/bin/env python3
"""Compares the SASS of the kernels two builds contain, instantiation by instantiation (cuobjdump -sass).

For a change meant to leave some kernels alone (a new kernel copy, a host-side change), this shows that their
machine code is the same instruction for instruction, or how their opcode counts differ. No GPU needed: cuobjdump
is in the CUDA toolkit (and in PyPI's nvidia-cuda-cuobjdump wheel where the toolkit lacks it).

    python3 scripts/sass_compare.py OLD/build/release/ladder NEW/build/release/ladder --kernel small_m_kernel
    python3 scripts/sass_compare.py A B --kernel small_m_kernel --rename ', 1>=, 1, false>'

--rename OLD=NEW maps an old instantiation's name to the new one's (a template parameter added with a default).
Exit status 1 if any compared kernel differs or is missing from the new build.
"""
import argparse
import collections
import re
import shutil
import subprocess
import sys


def kernels(binary, pattern):
    """{demangled name: [instruction text]} of the functions whose mangled name contains `pattern`."""
    tool = shutil.which("cuobjdump")
    if tool is None:
        sys.exit("sass_compare: cuobjdump not found on PATH")
    sass = subprocess.run([tool, "-sass", binary], capture_output=True, text=True, check=True).stdout
    out = {}
    for body in re.split(r"\n\s+Function : ", sass)[1:]:
        name = body.split("\n", 1)[0].strip()
        if pattern not in name:
            continue
        pretty = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip() or name
        out[pretty] = [re.sub(r"\s+", " ", m.group(1)).strip() for m in re.finditer(r"/\*[0-9a-f]+\*/\s+([^;]*);", body)]
    return out


def opcodes(instructions):
    # the opcode, with its predicate when it has one (@P0 BRA)
    return collections.Counter(" ".join(i.split(" ")[:2]) if i.startswith("@") else i.split(" ")[0] for i in instructions)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--kernel", required=True, help="a substring of the mangled kernel names to compare")
    ap.add_argument("--rename", action="append", default=[], metavar="OLD=NEW")
    args = ap.parse_args(argv)
    old, new = kernels(args.old, args.kernel), kernels(args.new, args.kernel)
    if not old:
        sys.exit(f"sass_compare: no kernel matching '{args.kernel}' in {args.old}")
    differ = 0
    for name, ins in sorted(old.items()):
        target = name
        for rule in args.rename:
            a, b = rule.split("=", 1)
            target = target.replace(a, b)
        got = new.get(target)
        if got is None:
            print(f"missing  {target}")
            differ += 1
        elif got == ins:
            print(f"same     {len(ins):6d} instructions  {name}")
        else:
            a, b = opcodes(ins), opcodes(got)
            delta = {op: b[op] - a[op] for op in sorted(set(a) | set(b)) if a[op] != b[op]}
            print(f"differs  {len(ins):6d} -> {len(got)} instructions  {name}  opcodes {delta or 'same, operands differ'}")
            differ += 1
    print(f"{len(old) - differ} of {len(old)} the same; {len(new)} matching kernels in the new build")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
