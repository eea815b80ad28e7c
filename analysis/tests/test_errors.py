"""Bad input: a missing or malformed CSV gives one clear line naming the file, the
column and the line, exit code 2 (plot_all: 1, the other figures still drawn),
never a traceback; plot_all skips studies whose CSV is absent."""
import shutil

from conftest import STUDIES, edit_csv, run_script


def drop_column(name):
    def edit(rows):
        i = rows[0].index(name)
        return [r[:i] + r[i + 1:] for r in rows]
    return edit


def set_cell(line, column, value):
    def edit(rows):
        rows[line - 1][rows[0].index(column)] = value
        return rows
    return edit


def assert_clean_error(result, *needles):
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("error: "), result.stderr
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)


def test_missing_column_exits_2_naming_column(run_dir):
    csv = run_dir / "variance" / "variance.csv"
    edit_csv(csv, drop_column("var_norm_l2"))
    result = run_script("plot_variance.py", run_dir)
    assert result.returncode == 2
    assert_clean_error(result, str(csv), "missing column 'var_norm_l2'")
    assert not (run_dir / "figures" / "variance.png").exists()


def test_non_numeric_value_exits_2_naming_column_and_line(run_dir):
    csv = run_dir / "bandwidth" / "bandwidth.csv"
    edit_csv(csv, set_cell(5, "speedup", "fast"))
    result = run_script("plot_bandwidth.py", run_dir)
    assert result.returncode == 2
    assert_clean_error(result, str(csv), "line 5", "column 'speedup'", "'fast' is not a number")


def test_empty_required_cell_exits_2(run_dir):
    csv = run_dir / "hierarchical" / "hierarchical.csv"
    edit_csv(csv, set_cell(3, "allreduce_ms", ""))
    result = run_script("plot_hierarchical.py", run_dir)
    assert result.returncode == 2
    assert_clean_error(result, "line 3", "column 'allreduce_ms'", "empty cell")


def test_non_integer_step_exits_2(run_dir):
    edit_csv(run_dir / "lamb" / "coefficients.csv", set_cell(4, "step", "2.5"))
    result = run_script("plot_lamb.py", run_dir)
    assert result.returncode == 2
    assert_clean_error(result, "line 4", "column 'step'", "'2.5' is not an integer")


def test_unknown_status_exits_2(run_dir):
    edit_csv(run_dir / "break_even" / "break_even.csv", set_cell(2, "status", "maybe"))
    result = run_script("plot_break_even.py", run_dir)
    assert result.returncode == 2
    assert_clean_error(result, "line 2", "column 'status'", "found, above_range, below_range")


def test_found_without_value_exits_2(run_dir):
    csv = run_dir / "break_even" / "break_even.csv"
    edit_csv(csv, set_cell(2, "break_even_effective_gbit_s", ""))  # row 2 has status found
    result = run_script("plot_break_even.py", run_dir)
    assert result.returncode == 2
    assert_clean_error(result, "line 2", "break_even_effective_gbit_s")


def test_algorithm_switch_without_value_or_unknown_nccl_status_exits_2(run_dir):
    csv = run_dir / "break_even" / "break_even.csv"
    # line 3 is the fixture's algorithm_switch row
    edit_csv(csv, set_cell(3, "nccl_default_break_even_effective_gbit_s", ""))
    result = run_script("plot_break_even.py", run_dir)
    assert result.returncode == 2
    assert_clean_error(result, "line 3", "nccl_default_break_even_effective_gbit_s",
                       "algorithm_switch")
    edit_csv(csv, set_cell(2, "nccl_default_status", "maybe"))
    result = run_script("plot_break_even.py", run_dir)
    assert result.returncode == 2
    assert_clean_error(result, "line 2", "column 'nccl_default_status'", "'maybe'")


def test_ragged_row_and_empty_file_exit_2(run_dir):
    csv = run_dir / "volume" / "volume.csv"
    edit_csv(csv, lambda rows: rows[:2] + [rows[2][:3]] + rows[3:])
    result = run_script("plot_volume.py", run_dir)
    assert result.returncode == 2
    assert_clean_error(result, "line 3 has 3 cells, expected 6")
    csv.write_text("")
    result = run_script("plot_volume.py", run_dir)
    assert result.returncode == 2
    assert_clean_error(result, "empty file")


def test_missing_csv_of_a_script_exits_2(run_dir):
    shutil.rmtree(run_dir / "profile")
    result = run_script("plot_profile.py", run_dir)
    assert result.returncode == 2
    assert_clean_error(result, "profile.csv: file not found")


def test_plot_all_skips_absent_studies(run_dir):
    kept = {"variance", "volume"}
    for study in set(STUDIES) - kept:
        shutil.rmtree(run_dir / study)
    result = run_script("plot_all.py", run_dir)
    assert result.returncode == 0, result.stderr
    for study in set(STUDIES) - kept:
        assert "skip %s: no %s/" % (study, study) in result.stdout
        assert not (run_dir / "figures" / ("%s.png" % study)).exists()
    for study in kept:
        assert (run_dir / "figures" / ("%s.png" % study)).stat().st_size > 0
    assert "2 drawn, 10 skipped, 0 failed" in result.stdout
    # A study whose main CSV is there but whose optional one is not still draws.
    (run_dir / "variance" / "freeze.csv").unlink()
    result = run_script("plot_all.py", run_dir)
    assert result.returncode == 0 and "2 drawn, 10 skipped, 0 failed" in result.stdout


def test_plot_all_with_nothing_to_draw_fails_saying_so(tmp_path):
    result = run_script("plot_all.py", tmp_path)
    assert result.returncode == 1
    assert "0 drawn, 12 skipped, 0 failed" in result.stdout
    assert "%s: no study CSV found, nothing drawn" % tmp_path in result.stderr
    assert not (tmp_path / "figures").exists()


def test_plot_all_reports_bad_csv_and_draws_the_rest(run_dir):
    for study in set(STUDIES) - {"convergence", "volume"}:
        shutil.rmtree(run_dir / study)
    csv = run_dir / "convergence" / "curves.csv"
    edit_csv(csv, drop_column("time_s"))
    result = run_script("plot_all.py", run_dir)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "missing column 'time_s'" in result.stderr and str(csv) in result.stderr
    assert "1 drawn, 10 skipped, 1 failed (convergence)" in result.stdout
    assert not (run_dir / "figures" / "convergence.png").exists()
    assert (run_dir / "figures" / "volume.png").exists()
