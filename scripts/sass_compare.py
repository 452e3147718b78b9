#!/usr/bin/env python3
"""Compares the SASS of the kernels two builds contain, instantiation by instantiation (cuobjdump -sass).

For a change meant to leave some kernels alone (a new kernel copy, a host-side change), this shows that their
machine code is the same instruction for instruction, or how their opcode counts differ. No GPU needed: cuobjdump
is in the CUDA toolkit (and in PyPI's nvidia-cuda-cuobjdump wheel where the toolkit lacks it).

    python3 scripts/sass_compare.py OLD/build/release/ladder NEW/build/release/ladder --kernel small_m_kernel
    python3 scripts/sass_compare.py A B --kernel small_m_kernel --rename ', 1>=, 1, false>'

--rename OLD=NEW maps an old instantiation's name to the new one's (a template parameter added with a default).
A name found in several cubins (other translation units, architectures) is compared copy by copy, in order.
Exit status: 0 all the same, 1 some kernel differs or is missing from the new build, 2 the tool could not compare
(no cuobjdump, cuobjdump failed, no kernel matched).
"""
import argparse
import collections
import re
import shutil
import subprocess
import sys


class ToolError(Exception):
    pass


def demangle(name):
    if shutil.which("c++filt") is None:
        return name
    return subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip() or name


def kernels(binary, pattern):
    """{demangled name: [[instruction text] per copy]} of the functions whose mangled name contains `pattern`."""
    tool = shutil.which("cuobjdump")
    if tool is None:
        raise ToolError("cuobjdump not found on PATH")
    run = subprocess.run([tool, "-sass", binary], capture_output=True, text=True)
    if run.returncode != 0:
        raise ToolError(f"cuobjdump -sass {binary} failed: {run.stderr.strip()[:300]}")
    out = {}
    for body in re.split(r"\n\s+Function : ", run.stdout)[1:]:
        name = body.split("\n", 1)[0].strip()
        if pattern not in name:
            continue
        ins = [re.sub(r"\s+", " ", m.group(1)).strip() for m in re.finditer(r"/\*[0-9a-f]+\*/\s+([^;]*);", body)]
        out.setdefault(demangle(name), []).append(ins)
    return out


def opcodes(instructions):
    # the opcode, with its predicate when it has one (@P0 BRA)
    return collections.Counter(" ".join(i.split(" ")[:2]) if i.startswith("@") else i.split(" ")[0] for i in instructions)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--kernel", required=True, help="a substring of the mangled kernel names to compare")
    ap.add_argument("--rename", action="append", default=[], metavar="OLD=NEW", type=rename_rule)
    args = ap.parse_args(argv)
    try:
        old, new = kernels(args.old, args.kernel), kernels(args.new, args.kernel)
    except ToolError as e:
        print(f"sass_compare: {e}", file=sys.stderr)
        return 2
    if not old:
        print(f"sass_compare: no kernel matching '{args.kernel}' in {args.old}", file=sys.stderr)
        return 2
    compared = differ = 0
    for name, copies in sorted(old.items()):
        target = name
        for a, b in args.rename:
            target = target.replace(a, b)
        got = new.get(target, [])
        for i, ins in enumerate(copies):
            compared += 1
            label = name if len(copies) == 1 else f"{name} (copy {i + 1} of {len(copies)})"
            if i >= len(got):
                print(f"missing  {target}" + ("" if len(copies) == 1 else f" (copy {i + 1})"))
                differ += 1
            elif got[i] == ins:
                print(f"same     {len(ins):6d} instructions  {label}")
            else:
                a, b = opcodes(ins), opcodes(got[i])
                delta = {op: b[op] - a[op] for op in sorted(set(a) | set(b)) if a[op] != b[op]}
                print(f"differs  {len(ins):6d} -> {len(got[i])} instructions  {label}  "
                      f"opcodes {delta or 'same, operands differ'}")
                differ += 1
    matching = sum(len(c) for c in new.values())
    print(f"{compared - differ} of {compared} the same; {matching} matching kernels in the new build")
    return 1 if differ else 0


def rename_rule(text):
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--rename takes OLD=NEW, not {text!r}")
    return tuple(text.split("=", 1))


if __name__ == "__main__":
    sys.exit(main())
