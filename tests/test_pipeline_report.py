"""The pipeline report's Markdown to HTML: code spans, links, emphasis, lists and tables render,
everything else is escaped, and file links are relative to the report and only to files that
exist. (test_pipeline.py checks the links of a whole report.)"""

from __future__ import annotations

import pytest

pytest.importorskip("paddle")


def test_inline_markdown_renders_code_links_and_emphasis_and_escapes_the_rest():
    from optimize.pipeline_report import inline_html

    assert (
        inline_html("[`dataset/`](dataset/) and `a<b*c*`")
        == '<a href="dataset/"><code>dataset/</code></a> and <code>a&lt;b*c*</code>'
    )
    assert (
        inline_html("**best** is *this* <one> & [drag counts]")
        == "<strong>best</strong> is <em>this</em> &lt;one&gt; &amp; [drag counts]"
    )
    assert inline_html("2 * 3 * 4, a_b") == "2 * 3 * 4, a_b"


def test_file_links_are_relative_to_the_report_and_only_to_files_that_exist(tmp_path):
    from optimize.pipeline_report import file_link

    (tmp_path / "optimize" / "my design").mkdir(parents=True)
    (tmp_path / "optimize" / "my design" / "case.vtm").write_text("")
    assert file_link(tmp_path, tmp_path / "optimize") == "[`optimize/`](optimize/)"
    assert (
        file_link(tmp_path, tmp_path / "optimize" / "my design" / "case.vtm")
        == "[`optimize/my design/case.vtm`](optimize/my%20design/case.vtm)"
    )
    assert file_link(tmp_path, tmp_path / "optimize" / "best.stl") == "`optimize/best.stl`"


def test_blocks_render_to_html_without_markdown_left_over():
    from optimize.pipeline_report import Block, render_html, render_md

    blocks = [
        Block("heading", "Report"),
        Block("text", "see `x.json`"),
        Block("list", items=["[`dataset/`](dataset/)", "*two*"]),
        Block("table", rows=[["metric", "value"], ["`cd`", "1 < 2"]]),
        Block("image", "images/a.png"),
    ]
    page = render_html(blocks)
    assert "`" not in page and "1 &lt; 2" in page
    assert (
        '<ul><li><a href="dataset/"><code>dataset/</code></a></li><li><em>two</em></li></ul>'
        in page
    )
    assert '<a href="images/a.png"><img src="images/a.png" alt="a"></a>' in page
    assert "- [`dataset/`](dataset/)\n- *two*\n" in render_md(blocks)
