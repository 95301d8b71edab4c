"""readScreen over a declared HTML screen (reference.akan.screen, reference.akan.html_tree)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reference.akan.builtins import BUILTIN_NAMES, Builtins, is_internal
from reference.akan.html_tree import parse_html
from reference.akan.screen import MAX_CHARS, Line, ScreenReader

READER = ScreenReader()
limit, read_screen, resolve, sections, slug = (
    READER.limit, READER.read, READER.resolve, READER.sections, READER.slug
)
offered = Builtins().offered

PAGE = """
<main>
  <section id="orders"><h2>Orders &amp; Returns</h2><p>Seven open.</p>
    <label for="q">Search</label><input id="q" value="late">
    <input type="password" name="pin" value="hunter2"><button disabled>Refund</button>
    <h3>Notes</h3><p>Thirty days.</p>
  </section>
  <div data-agent-scope="filters"><h2>Filters</h2><input type="checkbox" name="mine" checked></div>
  <div hidden id="archive"><h2>Archive</h2></div>
  <aside data-agent-ui><p>chat panel</p></aside>
  <footer data-agent-skip="site footer"><p>Terms.</p></footer>
  <h2>Billing</h2><p>Monthly.</p>
</main>
"""
ROOT = parse_html(PAGE)


def test_default_read_lists_headings_links_values_and_markers() -> None:
    # akan.builtin.read-screen-compact-text, akan.readscreen.anchor-printed, akan.readscreen.skip-marker
    text = read_screen(ROOT, None)
    assert "## Orders & Returns (#orders)" in text
    assert "[input Search: late]" in text
    assert "[button: Refund] (disabled)" in text
    assert "## Filters (#filters)" in text and "[checkbox mine: checked]" in text
    assert "[skipped: site footer]" in text and "Terms." not in text


def test_what_the_agent_may_not_read_never_appears() -> None:
    # akan.builtin.read-screen-never-reads-password, akan.builtin.read-screen-skips-chat-ui
    for section in (None, "orders", "Orders & Returns"):
        text = read_screen(ROOT, section)
        assert "hunter2" not in text and "chat panel" not in text and "Archive" not in text


def test_a_heading_matches_on_letters_and_digits_and_reads_to_its_next_peer() -> None:
    # akan.readscreen.heading-match-letters-digits, akan.readscreen.heading-section-extent
    assert slug("Orders & Returns") == slug("orders-returns") == "ordersreturns"
    text = read_screen(ROOT, "ORDERS returns")
    assert text.startswith("## Orders & Returns") and "Thirty days." in text
    assert "Filters" not in text and "Billing" not in text
    assert read_screen(ROOT, "notes") == "### Notes\nThirty days."


def test_non_heading_names_match_exactly_and_hidden_ones_never() -> None:
    # akan.readscreen.exact-match-for-non-headings, akan.readscreen.hidden-never-resolves
    assert resolve(ROOT, "filters") is not None
    assert resolve(ROOT, "Filters") is not None  # the heading, by its text
    assert resolve(ROOT, "filter") is None
    assert resolve(parse_html('<div data-agent-scope="filters">x</div>'), "filter-s") is None
    assert resolve(ROOT, "archive") is None and resolve(ROOT, "Archive") is None
    assert resolve(ROOT, "") is None


def test_a_refusal_names_the_sections_on_screen() -> None:
    # akan.readscreen.refusal-lists-sections
    text = read_screen(ROOT, "invoices")
    assert "invoices" in text
    assert sections(ROOT) == ["Orders & Returns", "Notes", "filters", "Filters", "site footer", "Billing"]


def test_a_skipped_region_reads_whole_when_named() -> None:
    # akan.readscreen.skip-marker-name-is-section, akan.readscreen.skip-raw-attribute
    assert read_screen(ROOT, "site footer") == "Terms."
    unnamed = parse_html('<p>x</p><nav data-agent-skip><a href="/h">Help</a></nav>')
    assert "[skipped: nav]" in read_screen(unnamed, None)
    assert read_screen(unnamed, "nav") == "[Help](/h)"


def test_a_cut_read_fits_the_limit_and_names_the_headings_below() -> None:
    # akan.readscreen.character-limit, akan.readscreen.truncated-read-lists-remaining-headings
    lines = [Line("# Top", 1, "Top"), Line("x" * 5000), Line("y" * 5000), Line("## Later", 2, "Later")]
    text = limit(lines)
    assert len(text) <= MAX_CHARS
    assert "x" * 5000 in text and "y" * 10 not in text
    assert text.endswith("further down: Later]")
    assert len(limit([Line("z" * 20000)])) <= MAX_CHARS


@settings(max_examples=200)
@given(sizes=st.lists(st.integers(min_value=0, max_value=4000), max_size=12),
       headings=st.lists(st.booleans(), max_size=12))
def test_every_read_stays_within_the_limit(sizes: list[int], headings: list[bool]) -> None:
    lines = [
        Line(f"## H{i}", 2, f"H{i}") if i < len(headings) and headings[i] else Line("w" * size)
        for i, size in enumerate(sizes)
    ]
    text = ScreenReader(max_chars=2000).limit(lines)
    assert len(text) <= 2000
    if len("\n".join(line.text for line in lines)) <= 2000:
        assert text == "\n".join(line.text for line in lines)


def test_builtins_are_offered_and_a_page_tool_shadows_one() -> None:
    # akan.builtin.five-on-every-surface, akan.builtin.hook-tool-shadows-builtin, akan.builtin.no-general-wait
    expected = {"navigate", "goBack", "readScreen", "readState", "highlight"}
    assert expected == BUILTIN_NAMES
    grid = {"name": "readScreen", "description": "Read the grid", "parameters": {}}
    tools = offered([grid, {"name": "save", "description": "Save", "parameters": {}}])
    assert [t["name"] for t in tools].count("readScreen") == 1
    assert tools[0] == grid
    assert len(tools) == 6 and "wait" not in {t["name"] for t in tools}


def test_only_app_paths_are_internal() -> None:
    # akan.builtin.navigate-internal-only
    assert is_internal("/tasks/42") and is_internal("/")
    for path in ("https://evil.example", "//evil.example/x", "javascript:alert(1)", "tasks", "", "\\\\host"):
        assert not is_internal(path), path
