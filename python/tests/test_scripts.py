"""scripts/readme_table.py and scripts/plot.py on a small synthetic bench CSV."""
import sys

import pytest

import bench_csv
import plot
import readme_table

HEADER = ",".join(bench_csv.COLUMNS)
PROVENANCE = "NVIDIA H200,abc123def456,2026-11-29T12:00:00Z"
CSV_ROWS = [  # step,arch,m,n,k,median_ms,tflops,cublas_tflops,ratio,rel_err,status,min,max,cublas_ms,reps,sets,resolved
    "h01,hopper,128,128,64,0.01000,0.2,1.0,0.200,1.200e-04,pass,0.009,0.011,0.002,10,2,h01",
    "h03,hopper,4096,4096,4096,0.34360,400.0,720.0,0.556,2.500e-04,pass,0.34,0.35,0.19,10,2,h03",
    "h04,hopper,4096,4096,4096,0.20000,687.0,720.0,0.954,2.400e-04,pass,0.19,0.21,0.19,10,2,h04",
    "h03,hopper,8192,8192,8192,2.90000,379.1,670.0,0.566,3.100e-04,pass,2.8,3.0,1.64,10,2,h03",
    "h04,hopper,8192,8192,8192,0.00000,0.0,670.0,0.000,3.000e-01,fail,0,0,1.64,10,2,h04",
]
LADDER_LIST = """GPU: no CUDA GPU is usable

id   arch      target   title                shapes                           runs here
h01  hopper    sm_90a   one tile             M==128, N==128, K==64            no GPU
     change: smallest correct kernel
h03  hopper    sm_90a   2D grid              M%128==0, N%128==0, K%64==0      no GPU
h04  hopper    sm_90a   TMA                  M%128==0                         no GPU
"""


@pytest.fixture
def bench(tmp_path):
    path = tmp_path / "results" / "bench.csv"
    path.parent.mkdir()
    path.write_text("\n".join([HEADER] + [f"{r},{PROVENANCE}" for r in CSV_ROWS]) + "\n")
    return path


@pytest.fixture
def readme(tmp_path):
    path = tmp_path / "README.md"
    path.write_text(f"# ladder\n\nintro\n\n{readme_table.BEGIN}\nold table\n{readme_table.END}\n\n## Errors\nkept\n")
    return path


def test_csv_reading_and_shape_choice(bench):
    rows = bench_csv.read(bench)
    assert [r.step for r in rows] == ["h01", "h03", "h04", "h03", "h04"]
    assert bench_csv.shapes(rows) == [(128, 128, 64), (4096,) * 3, (8192,) * 3]
    assert bench_csv.default_shape(rows) == (4096, 4096, 4096)  # two passing steps there, one at 8192³
    assert bench_csv.parse_shape("8192") == (8192,) * 3
    assert bench_csv.parse_shape("4095x4097x4099") == (4095, 4097, 4099)
    with pytest.raises(bench_csv.CsvError, match="bad shape"):
        bench_csv.parse_shape("12x12")


def test_csv_without_the_columns_is_rejected(tmp_path, readme, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("step,m,n\nh01,1,2\n")
    assert readme_table.main([str(bad), "--readme", str(readme)]) == 2
    assert "missing columns: k, tflops" in capsys.readouterr().err


def test_readme_table_numbers_and_provenance(bench, readme):
    assert readme_table.main([str(bench), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("# ladder\n\nintro\n\n" + readme_table.BEGIN + "\n| step | shape | TFLOP/s |")
    assert text.endswith(readme_table.END + "\n\n## Errors\nkept\n")
    assert "old table" not in text
    # 400 of cuBLAS 720 is 55.6 %; of the 989.5 peak 40.4 %.
    assert "| `h03` | 4096³ | 400.0 | 720.0 | 55.6 | 40.4 | 2.5e-04 |" in text
    assert "| `h01` | 128×128×64 | 0.2 | 1.0 | 20.0 | 0.0 | 1.2e-04 |" in text
    assert "| `h04` | 8192³ | — | 670.0 | — | — | 3.0e-01 (fail) |" in text
    # steps in CSV order, each step's shapes smallest first
    order = [line.split("|")[1:3] for line in text.splitlines() if line.startswith("| `")]
    assert [(s.strip(), sh.strip()) for s, sh in order] == [
        ("`h01`", "128×128×64"), ("`h03`", "4096³"), ("`h03`", "8192³"), ("`h04`", "4096³"), ("`h04`", "8192³")]
    assert ("Measured on NVIDIA H200, commit `abc123def456`, 2026-11-29T12:00:00Z; "
            "source: `results/bench.csv`") in text


def test_readme_table_is_idempotent_and_check_says_when_stale(bench, readme, capsys):
    assert readme_table.main([str(bench), "--readme", str(readme), "--check"]) == 1
    assert "old table" in readme.read_text()  # --check writes nothing
    assert readme_table.main([str(bench), "--readme", str(readme)]) == 0
    once = readme.read_text()
    assert readme_table.main([str(bench), "--readme", str(readme)]) == 0
    assert readme.read_text() == once
    assert readme_table.main([str(bench), "--readme", str(readme), "--check"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_readme_table_with_steps_info_and_one_shape(bench, readme, tmp_path):
    info = tmp_path / "steps.txt"
    info.write_text(LADDER_LIST)
    assert readme_table.read_steps_info(info) == {"h01": "one tile", "h03": "2D grid", "h04": "TMA"}
    assert readme_table.main([str(bench), "--readme", str(readme), "--steps-info", str(info), "--shape", "4096"]) == 0
    text = readme.read_text()
    assert "| step | change | shape |" in text
    assert "| `h04` | TMA | 4096³ | 687.0 | 720.0 | 95.4 | 69.4 | 2.4e-04 |" in text
    assert "8192³" not in text and "128×128×64" not in text


def test_readme_without_markers_is_an_error(bench, tmp_path, capsys):
    plain = tmp_path / "README.md"
    plain.write_text("# no markers\n")
    assert readme_table.main([str(bench), "--readme", str(plain)]) == 2
    assert "needs exactly one '<!-- ladder-table:begin -->'" in capsys.readouterr().err
    assert plain.read_text() == "# no markers\n"


def test_plot_without_matplotlib_says_what_it_needs(bench, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    assert plot.main([str(bench), "-o", str(tmp_path)]) == 2
    assert "plot.py needs matplotlib: python3 -m pip install matplotlib" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.png"))


@pytest.fixture
def plt():
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (.ci/run installs it)")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot
    return matplotlib.pyplot


def test_plot_writes_both_pictures(bench, tmp_path, plt):
    out = tmp_path / "pics"
    assert plot.main([str(bench), "-o", str(out)]) == 0
    for name in ("ladder_steps.png", "ladder_sizes.png"):
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, name


def test_plot_bars_carry_cublas_share_and_provenance(bench, tmp_path, plt, monkeypatch):
    figures = []
    monkeypatch.setattr(plt, "close", figures.append)  # keep the figures to look at them
    rows = bench_csv.read(bench)
    plot.plot_steps(plt, rows, (8192, 8192, 8192), tmp_path / "s.png")
    plot.plot_sizes(plt, rows, tmp_path / "z.png")
    bars, sizes = (f.axes[0] for f in figures)
    assert [t.get_text() for t in bars.texts] == ["57%", "fail"]
    assert [p.get_height() for p in bars.patches] == [pytest.approx(379.1), 0.0]
    assert "cuBLAS 670 TFLOP/s" in [t.get_text() for t in bars.get_legend().get_texts()]
    for ax in (bars, sizes):
        assert "NVIDIA H200" in ax.get_title() and "abc123def456" in ax.get_title() and "2026-11-29" in ax.get_title()
    assert "8192³" in bars.get_title()
    lines = {line.get_label(): list(line.get_ydata()) for line in sizes.get_lines()}
    assert lines["h03"][1:] == [400.0, pytest.approx(379.1)]
    assert lines["h03"][0] != lines["h03"][0]  # NaN at 128x128x64, where h03 did not run: the line breaks
    h04 = lines["h04"]  # only 4096³ ran; the failed 8192³ point is left out
    assert h04[1] == 687.0 and all(v != v for v in (h04[0], h04[2]))
    assert lines["cuBLAS"] == [1.0, 720.0, 670.0]


def test_plot_rejects_a_shape_not_in_the_csv(bench, tmp_path, plt, capsys):
    assert plot.main([str(bench), "-o", str(tmp_path), "--shape", "2048"]) == 2
    assert "no rows at 2048³" in capsys.readouterr().err


def test_steps_that_accept_no_shape_are_listed_not_tabled(tmp_path, readme):
    path = tmp_path / "skip.csv"
    rows = CSV_ROWS[1:3] + ["h02,hopper,4096,4096,4096,0.00000,0.0,0.0,0.000,0.000e+00,skip,0,0,0,0,0,h02"]
    path.write_text("\n".join([HEADER] + [f"{r},{PROVENANCE}" for r in rows]) + "\n")
    assert readme_table.main([str(path), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert "| `h02`" not in text
    assert "Not in the table (they accept none of these shapes): `h02`." in text
    assert "| `h04` | 4096³ | 687.0" in text


# ---- scripts/torch_bench.py and scripts/llama_model.py: their dry runs (CPU, torch math) -----------------------

import json  # noqa: E402

import torch_timing  # noqa: E402


def test_the_commit_comes_from_the_flag_the_environment_git_or_the_build_stamp(tmp_path, monkeypatch):
    monkeypatch.delenv("LADDER_COMMIT", raising=False)
    assert torch_timing.commit("abc123") == "abc123"
    monkeypatch.setenv("LADDER_COMMIT", "fromenv")
    assert torch_timing.commit() == "fromenv"
    monkeypatch.delenv("LADDER_COMMIT")
    assert torch_timing.commit(repo=tmp_path) == "unknown"  # no git repository there, no stamp
    stamp = tmp_path / "build" / "release" / "generated" / "ladder_version.hpp"
    stamp.parent.mkdir(parents=True)
    stamp.write_text('#pragma once\n#define LADDER_GIT_COMMIT "0123456789ab-dirty"\n')
    assert torch_timing.commit(repo=tmp_path) == "0123456789ab-dirty"


def test_results_files_and_table(tmp_path):
    meta = {"commit": "c0ffee", "date": "2026-12-01T00:00:00Z", "gpu": "NVIDIA H200", "torch": "2.11.0"}
    rows = [{"case": "mlp", "ms": 1.23456789, "ok": True}, {"case": "gelu", "status": "error: boom"}]
    csv_path = torch_timing.write_results(tmp_path / "r.json", meta, rows)
    assert json.loads((tmp_path / "r.json").read_text()) == {"meta": meta, "rows": rows}
    lines = csv_path.read_text().splitlines()
    assert lines[0] == "case,ms,ok,status,commit,date,gpu,torch"
    assert lines[1] == "mlp,1.23457,True,,c0ffee,2026-12-01T00:00:00Z,NVIDIA H200,2.11.0"
    text = torch_timing.table(rows, ["case", "ms", "ok", "status"])
    assert text.splitlines()[1].split() == ["mlp", "1.235", "yes", "—"]
    assert torch_timing.input_sets(4 << 20, 50 << 20) == 8 and torch_timing.input_sets(200 << 20, 50 << 20) == 2


@pytest.fixture
def torch_or_skip():
    return pytest.importorskip("torch", reason="torch is not installed (the scripts' dry runs need it)")


def test_torch_bench_dry_run(tmp_path, torch_or_skip):
    import torch_bench
    out = tmp_path / "tb.json"
    assert torch_bench.main(["--dry-run", "--out", str(out), "--dtypes", "bfloat16", "--mlp-tokens", "8",
                             "--gelu", "gelu_tanh", "--commit", "testcommit"]) == 0
    data = json.loads(out.read_text())
    assert data["meta"]["commit"] == "testcommit" and data["meta"]["dry_run"] is True
    assert {"date", "gpu", "torch", "ladder_library"} <= data["meta"].keys()
    rows = {r["case"]: r for r in data["rows"]}
    assert rows.keys() == {"mlp_swiglu_residual", "linear_bias_gelu_tanh"}
    for r in rows.values():
        assert r["status"] == "pass" and r["ladder_rel_err"] < 1e-2 and r["eager_rel_err"] < 1e-2
        assert r["eager_ms"] > 0 and r["ladder_ms"] > 0 and r["compile_ms"] > 0 and r["speedup_vs_eager"] > 0
    assert rows["mlp_swiglu_residual"]["target_vs_compile"] == 1.03
    assert "meets_target_vs_eager" in rows["linear_bias_gelu_tanh"]
    assert out.with_suffix(".csv").read_text().splitlines()[0].endswith("commit,date,gpu,torch")


def test_torch_bench_reports_a_failing_case_and_goes_on(tmp_path, torch_or_skip, monkeypatch):
    import ladder
    import torch_bench

    def broken(*args, **kwargs):
        raise RuntimeError("swiglu is broken")

    monkeypatch.setattr(ladder, "swiglu", broken)
    out = tmp_path / "tb.json"
    assert torch_bench.main(["--dry-run", "--out", str(out), "--dtypes", "float16", "--mlp-tokens", "8",
                             "--gelu", "gelu"]) == 1
    rows = json.loads(out.read_text())["rows"]
    assert [r["case"] for r in rows] == ["mlp_swiglu_residual", "linear_bias_gelu"]
    assert rows[0]["status"] == "error: RuntimeError: swiglu is broken" and rows[1]["status"] == "pass"


@pytest.mark.parametrize("impl", ["mini", "hf"])
def test_llama_model_dry_run(tmp_path, torch_or_skip, impl):
    if impl == "hf":
        pytest.importorskip("transformers", reason="transformers is not installed")
    import llama_model
    out = tmp_path / "llama.json"
    assert llama_model.main(["--dry-run", "--impl", impl, "--out", str(out), "--batches", "1",
                             "--no-compile-baseline", "--compile-fused"]) == 0
    data = json.loads(out.read_text())
    assert ("LlamaForCausalLM" in data["meta"]["model"]) == (impl == "hf")
    value = {(r["part"], r["variant"], r["metric"]): r["value"] for r in data["rows"]}
    for part in ("fp16", "bf16"):
        for variant in ("torch", "ladder", "ladder_fused"):
            assert value[(part, variant, "prefill16_eager_tokens_per_s")] > 0
            assert value[(part, variant, "decode_b1_tokens_per_s")] > 0
            assert value[(part, variant, "decode_loop_vs_forward_rel_err")] < 2e-2
    for variant in ("ladder", "ladder_fused"):
        assert value[("bf16", variant, "error_in_line_with_torch_bf16")] is True
        assert 0 <= value[("bf16", variant, "top1_agreement_with_fp32")] <= 1
        assert value[("compile", variant, "graph_breaks")] == 0
        assert value[("compile", variant, "compiled_vs_eager_rel_err")] < 1e-2
    assert "ladder.patch: 9 nn.Linear replaced" in data["meta"]["patch_ladder_fused_bfloat16"]


def test_compile_profile_dry_run(tmp_path, torch_or_skip):
    import compile_profile
    out = tmp_path / "cp.json"
    assert compile_profile.main(["--dry-run", "--impl", "mini", "--out", str(out), "--reps", "2", "--top", "3"]) == 0
    data = json.loads(out.read_text())
    rows = {r["variant"]: r for r in data["rows"]}
    assert rows.keys() == {"torch_eager", "torch_compiled", "ladder_eager", "ladder_compiled"}
    for r in rows.values():
        assert r["gpu_ms"] > 0 and r["host_ms"] > 0 and len(r["top"]) == 3
    # the patched model's linears run as ladder's op, eagerly and inside the compiled graph
    for variant in ("ladder_eager", "ladder_compiled"):
        assert any(t["name"] == "ladder::linear" for t in rows[variant]["top"]), rows[variant]["top"]
    assert not any(t["name"].startswith("ladder::") for t in rows["torch_eager"]["top"])
    assert "nn.Linear replaced" in data["meta"]["patch"]


def test_sass_compare_reports_same_differing_and_missing_kernels(monkeypatch, capsys):
    import sass_compare
    builds = {
        "old": {"k<A, 1>": ["IMAD R1, R2, R3", "@P0 BRA 0x40", "EXIT"], "k<B, 1>": ["MOV R1, R2", "EXIT"],
                "k<C, 1>": ["EXIT"]},
        "new": {"k<A, 1, false>": ["IMAD R1, R2, R3", "@P0 BRA 0x40", "EXIT"],
                "k<B, 1, false>": ["MOV R1, R2", "@!P3 BRA 0x80", "EXIT"], "k<A, 1, true>": ["EXIT"]},
    }
    monkeypatch.setattr(sass_compare, "kernels",
                        lambda binary, pattern: {name: [ins] for name, ins in builds[binary].items()})
    assert sass_compare.main(["old", "new", "--kernel", "k", "--rename", ", 1>=, 1, false>"]) == 1
    out = capsys.readouterr().out
    assert "same          3 instructions  k<A, 1>" in out
    assert "differs       2 -> 3 instructions  k<B, 1>  opcodes {'@!P3 BRA': 1}" in out
    assert "missing  k<C, 1, false>" in out
    assert "1 of 3 the same; 3 matching kernels in the new build" in out
    builds["new"]["k<B, 1, false>"] = ["MOV R1, R2", "EXIT"]
    builds["new"]["k<C, 1, false>"] = ["EXIT"]
    assert sass_compare.main(["old", "new", "--kernel", "k", "--rename", ", 1>=, 1, false>"]) == 0
    # a name in several cubins is compared copy by copy
    monkeypatch.setattr(sass_compare, "kernels", lambda binary, pattern: {
        "k<A>": [["EXIT"], ["NOP", "EXIT"]] if binary == "old" else [["EXIT"], ["EXIT"]]})
    assert sass_compare.main(["old", "new", "--kernel", "k"]) == 1
    assert "differs       2 -> 1 instructions  k<A> (copy 2 of 2)" in capsys.readouterr().out
    # the tool failing is not a difference
    def broken(binary, pattern):
        raise sass_compare.ToolError("cuobjdump not found on PATH")
    monkeypatch.setattr(sass_compare, "kernels", broken)
    assert sass_compare.main(["old", "new", "--kernel", "k"]) == 2
    with pytest.raises(SystemExit):
        sass_compare.main(["old", "new", "--kernel", "k", "--rename", "no-equals-sign"])


def test_registration_cost_writes_its_csv(tmp_path, torch_or_skip):
    import registration_cost
    out = tmp_path / "registration-cost.csv"
    assert registration_cost.main(["--out", str(out), "--calls", "20"]) == 0
    rows = out.read_text().splitlines()
    assert rows[0].startswith("mode,custom_op_us,library_impl_us,library_impl_guarded_us,saved_us,saved_guarded_us,"
                              "commit,")
    assert [r.split(",")[0] for r in rows[1:]] == ["inference", "grad"]
    assert all(all(float(v) > 0 for v in r.split(",")[1:4]) for r in rows[1:])


def test_check_cost_writes_its_csv(tmp_path, torch_or_skip):
    import check_cost
    out = tmp_path / "check-cost.csv"
    assert check_cost.main(["--out", str(out), "--calls", "20"]) == 0
    rows = out.read_text().splitlines()
    assert rows[0] == "case,checks_us,kept_us,descriptor_us,constructor_us,commit,date,host,torch,python"
    assert [r.split(",")[0] for r in rows[1:]] == ["plain", "bias+gelu+residual", "swiglu"]
    assert all(all(float(v) > 0 for v in r.split(",")[1:5]) for r in rows[1:])


def test_decode_report_shows_the_host_time_and_counts_host_paced_rows(tmp_path):
    import csv as csvmod

    import decode_report
    cols = ["step", "m", "n", "k", "median_ms", "gbps", "floor_gbps", "pct_floor", "cublas_gbps", "ratio_to_cublas",
            "status", "gpu", "commit", "date"]

    def write(path, host):
        with open(path, "w", newline="") as f:
            w = csvmod.DictWriter(f, fieldnames=cols + (["host_us", "cublas_host_us"] if host else []))
            w.writeheader()
            for m, ms, host_us in [(1, 0.0100, 9.5), (16, 0.0200, 6.0)]:  # 9.5 µs of 10 on the host: paced
                row = dict(step="best", m=m, n=1024, k=4096, median_ms=ms, gbps=1000, floor_gbps=1500, pct_floor=0.7,
                           cublas_gbps=900, ratio_to_cublas=1.1, status="pass", gpu="NVIDIA H200", commit="abc",
                           date="2026-12-06T00:00:00Z")
                if host:
                    row.update(host_us=host_us, cublas_host_us=3.0)
                w.writerow(row)

    write(tmp_path / "new.csv", True)
    text = decode_report.table(decode_report.load([tmp_path / "new.csv"])[0])
    assert "| × cuBLAS | host µs |" in text
    assert "| 8B k/v 1024×4096 | 1 | 10.0 | 1000 | 1500 | 70 | 900 | 1.10 | 9.5 |" in text
    assert "Host-paced rows (the host's time a call within 10 % of the GPU's): 1." in text
    write(tmp_path / "old.csv", False)  # the CSVs before the column: the table as it was
    text = decode_report.table(decode_report.load([tmp_path / "old.csv"])[0])
    assert "host" not in text
    assert "| 8B k/v 1024×4096 | 1 | 10.0 | 1000 | 1500 | 70 | 900 | 1.10 |" in text


def test_decode_report_adds_the_isolated_rows_beside_the_chained_ones(tmp_path):
    import csv as csvmod

    import decode_report
    cols = ["step", "m", "n", "k", "median_ms", "gbps", "floor_gbps", "pct_floor", "cublas_gbps", "ratio_to_cublas",
            "status", "gpu", "commit", "date", "tune"]
    path = tmp_path / "both.csv"
    with open(path, "w", newline="") as f:
        w = csvmod.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for m in (1, 16):
            for tune, ratio in (("", 1.25), ("pdl=0", 0.95), ("mc=1", 0.5)):  # another tune's rows are left out
                w.writerow(dict(step="best", m=m, n=1024, k=4096, median_ms=0.01, gbps=1000, floor_gbps=1500,
                                pct_floor=0.7, cublas_gbps=900, ratio_to_cublas=ratio, status="pass", gpu="NVIDIA H200",
                                commit="abc", date="2026-12-06T00:00:00Z", tune=tune))
    rows, iso, _ = decode_report.load([path])
    assert len(rows) == len(iso) == 2
    text = decode_report.table(rows, iso)
    assert "| × cuBLAS | isolated × cuBLAS |" in text
    assert "| 8B k/v 1024×4096 | 16 | 10.0 | 1000 | 1500 | 70 | 900 | 1.25 | 0.95 |" in text
    assert "geometric mean **1.25×**" in text and "geometric mean **0.95×** (M ≤ 16: 0.95×); 0 at or above" in text
    assert "isolated" not in decode_report.table(rows)  # no isolated rows: the table as before


def test_ncu_raw_gives_each_side_its_medians(tmp_path, capsys):
    import ncu_raw
    path = tmp_path / "raw.csv"
    path.write_text("==PROF== noise before the table\n"
                    '"ID","Kernel Name","gpu__time_duration.sum","lts__t_sectors.sum"\n'
                    '"","","ns","sector"\n'
                    '"0","small_m_kernel<...>","19000","3,000,000"\n'
                    '"1","nvjet_sm90_hsh_64x64","13000","1,800,000"\n'
                    '"2","small_m_kernel<...>","21000","2,000,000"\n'
                    '"3","small_m_kernel<...>","20000","n/a"\n')
    assert ncu_raw.main(["ncu_raw.py", str(path), "k/v"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "[k/v] ladder n=3 gpu__time_duration=20.0us lts__t_sectors=3000k(96.0MB)"
    assert out[1] == "[k/v] cublas n=1 gpu__time_duration=13.0us lts__t_sectors=1800k(57.6MB)"
    empty = tmp_path / "empty.csv"
    empty.write_text("==ERROR== the profiler failed\n")
    assert ncu_raw.main(["ncu_raw.py", str(empty), "x"]) == 1


def test_prefill_report_tables_the_suite_and_writes_the_readme_block(tmp_path):
    import csv as csvmod

    import prefill_report
    cols = ["step", "m", "n", "k", "median_ms", "cublas_median_ms", "ratio_to_cublas", "status", "gpu", "commit", "date",
            "tune"]
    path = tmp_path / "prefill.csv"
    with open(path, "w", newline="") as f:
        w = csvmod.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for m, ratio, tune in ((128, 1.25, ""), (384, 0.8, ""), (384, 2.0, "split=2")):  # a tuned row is left out
            w.writerow(dict(step="best", m=m, n=3072, k=3072, median_ms=0.02, cublas_median_ms=0.02 * ratio,
                            ratio_to_cublas=ratio, status="pass", gpu="NVIDIA H200", commit="abc",
                            date="2026-12-06T00:00:00Z", tune=tune))
    text = prefill_report.table(prefill_report.load(path))
    assert "| 3.2-3B q/o 3072×3072 | 384 | 20.0 | 16.0 | 0.80 |" in text
    assert "| 3.2-3B q/o 3072×3072 | 256 | — | — | — |" in text
    assert "2 of 56 shapes: best against cuBLAS, geometric mean **1.00×**; by M 128 1.25, 384 0.80; 1 below 1.0×" in text
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n{prefill_report.BEGIN}\nold\n{prefill_report.END}\nafter\n")
    import sys
    argv, sys.argv = sys.argv, ["prefill_report.py", str(path), "--readme", str(readme)]
    try:
        prefill_report.main()
    finally:
        sys.argv = argv
    out = readme.read_text()
    assert out.startswith("before\n") and out.endswith("after\n") and "old" not in out and "| 384 | 20.0 |" in out
