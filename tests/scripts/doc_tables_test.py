"""scripts/doc_tables.py: generated blocks rendered from hand-made CSVs hold the values
worked out here by hand; --check fails on a stale block and leaves the file alone; bad
blocks exit 2 naming the file and line."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "doc_tables.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def csv_dir(tmp_path):
    d = tmp_path / "run"
    (d / "hierarchical").mkdir(parents=True)
    (d / "hierarchical" / "hierarchical.csv").write_text(
        "nodes,gpus_per_node,gpus,scheme,elements,inter_node_bytes_per_node,allreduce_ms\n"
        "2,4,8,flat,100,900,9\n2,4,8,hierarchical,100,300,4.5\n"
        "8,4,32,flat,100,1200,30\n8,4,32,hierarchical,100,400,6\n")
    (d / "break_even").mkdir()
    (d / "break_even" / "break_even.csv").write_text(
        "workload,gpus,baseline,optimizer,break_even_effective_gbit_s,"
        "break_even_low_effective_gbit_s,break_even_high_effective_gbit_s,"
        "search_lo_effective_gbit_s,search_hi_effective_gbit_s,speedup_at_lo,status,"
        "tuned_algorithm,nccl_default_break_even_effective_gbit_s,nccl_default_status\n"
        "resnet50-imagenet,256,momentum-sgd,birder,111.3,107.1,131,0.01,1000,7.25,found,"
        "tree,112.6,algorithm_switch\n"
        "bert-large-seq128,256,adam,onebit-adam,,,,0.01,1000,6.45,above_range,ring,,"
        "above_range\n")
    (d / "bandwidth").mkdir()
    (d / "bandwidth" / "bandwidth.csv").write_text(
        "workload,gpus,baseline,optimizer,inter_node_effective_gbit_s,speedup\n"
        "resnet50-imagenet,256,momentum-sgd,birder,100,1.0303\n"
        "resnet50-imagenet,256,momentum-sgd,birder,1000,0.5346\n")
    return d


def doc(tmp_path, *names):
    path = tmp_path / "doc.md"
    body = "".join("text\n<!-- generated: %s -->\nold line\n<!-- end generated -->\n" % n
                   for n in names)
    path.write_text("# doc\n" + body)
    return path


def test_renders_the_hand_worked_values(tmp_path, csv_dir):
    path = doc(tmp_path, "hierarchical", "break_even")
    result = run("--csv-dir", csv_dir, path)
    assert result.returncode == 0, result.stderr
    text = path.read_text()
    assert "old line" not in text
    # flat / hierarchical: bytes 900/300 = 3, 1200/400 = 3; time 9/4.5 = 2, 30/6 = 5.
    assert "| 4 | 3.00× → 3.00× | 2.00× → 5.00× |" in text
    assert "bytes ratio, 2 → 8 nodes" in text
    assert ("| ResNet-50 (256 GPUs) | Birder / SGDM | 111 (tree) | 107–131 "
            "| 113 (algorithm switch) | 1.03× | 0.53× |" in text)
    assert ("| BERT-Large (256 GPUs) | 1-bit Adam / Adam | > 1000 | — | > 1000 | — | — |"
            in text)
    assert run("--check", "--csv-dir", csv_dir, path).returncode == 0


def test_check_fails_on_a_stale_block_and_changes_nothing(tmp_path, csv_dir):
    path = doc(tmp_path, "hierarchical")
    before = path.read_text()
    result = run("--check", "--csv-dir", csv_dir, path)
    assert result.returncode == 1
    assert "tables differ" in result.stderr and "-old line" in result.stdout
    assert path.read_text() == before


def test_bad_blocks_exit_2(tmp_path, csv_dir):
    path = doc(tmp_path, "no_such_table")
    result = run("--csv-dir", csv_dir, path)
    assert result.returncode == 2 and "unknown generated block 'no_such_table'" in result.stderr
    path.write_text("<!-- generated: hierarchical -->\nno end\n")
    result = run("--csv-dir", csv_dir, path)
    assert result.returncode == 2 and "has no '<!-- end generated -->' line" in result.stderr
    path = doc(tmp_path, "volume")
    result = run("--csv-dir", csv_dir, path)
    assert result.returncode == 2 and "volume.csv: missing" in result.stderr
