"""Prompt builders in code: what the Python and TypeScript/JavaScript readers turn into IR."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

from promptlint.core.ir import Block, Slot, Template, Text
from promptlint.loaders import load_text


def py(source: str, names: tuple[str, ...] = ()) -> Template:
    return load_text("builder.py", textwrap.dedent(source), prompt_names=names)


def ts(source: str, path: str = "builder.ts") -> Template:
    return load_text(path, textwrap.dedent(source))


def rendered(template: Template) -> str:
    """The prompt as the analysis renders it with slots named (one prompt)."""
    assert len(template.prompts) == 1, [p.name for p in template.prompts]
    out: list[str] = []

    def visit(segments: list) -> None:  # type: ignore[type-arg]
        for seg in segments:
            if isinstance(seg, Text):
                out.append(seg.text)
            elif isinstance(seg, Slot):
                out.append("{" + seg.expr.source + "}")
            elif isinstance(seg, Block):
                out.append(f"[{seg.kind}:")
                visit(seg.body)
                out.append("]")

    visit(template.prompts[0].segments)
    return "".join(out)


def slots(template: Template) -> list[Slot]:
    return [s for p in template.prompts for s in p.slots()]


def at(template: Template, slot: Slot) -> tuple[int, int]:
    where = template.position(slot.span.start)
    return where.line, where.column


# --------------------------------------------------------------------------- Python


def test_python_fstring_slot_keeps_format_spec_and_position() -> None:
    t = py('''
        from datetime import datetime
        SYSTEM_PROMPT = f"You are Atlas, a coding agent. Time: {datetime.now():%H:%M}."
    ''')
    (slot,) = slots(t)
    assert slot.expr.format_spec == "%H:%M" and "now" in slot.expr.calls
    assert at(t, slot) == (3, 57) and t.source[slot.span.start : slot.span.end] == "datetime.now()"


def test_python_constants_are_text_not_slots() -> None:
    t = py('''
        DATE_FORMAT = "%Y-%m-%d %H:%M"
        CUTOFF = 2024
        SYSTEM_PROMPT = f"You are Atlas. Dates use {DATE_FORMAT}. Knowledge ends in {CUTOFF}."
    ''')
    assert not slots(t)
    assert rendered(t) == "You are Atlas. Dates use %Y-%m-%d %H:%M. Knowledge ends in 2024."


def test_python_format_method_fills_fields_at_the_placeholder() -> None:
    t = py('''
        from datetime import datetime
        SYSTEM_TEMPLATE = """You are Compass.
        The time is {now}. You help {user_name}."""
        def render(user):
            return SYSTEM_TEMPLATE.format(now=datetime.now().isoformat(), user_name=user.name)
    ''')
    found = {s.expr.source: at(t, s) for s in slots(t)}
    assert found == {"datetime.now().isoformat()": (4, 13), "user.name": (4, 29)}


def test_python_format_fills_every_branch_of_a_conditional_template() -> None:
    t = py('''
        from datetime import datetime
        DEFAULT_SYSTEM_PROMPT = """You are a helpful assistant.
        Current time: {current_time}
        Always be clear and concise."""
        def get_system_prompt(custom_prompt=""):
            prompt = custom_prompt if custom_prompt else DEFAULT_SYSTEM_PROMPT
            return prompt.format(current_time=datetime.now().strftime("%H:%M"))
    ''')
    assert [(at(t, s)[0], s.expr.format_spec) for s in slots(t) if s.expr.calls] == [(4, "%H:%M")]


def test_python_percent_formatting() -> None:
    t = py('''
        import time
        def system_prompt():
            return "You are Sentry, an on-call assistant. Local time: %s." % (time.strftime("%H:%M"),)
    ''')
    (slot,) = slots(t)
    assert slot.expr.calls[0] == "strftime" and slot.expr.format_spec == "%H:%M"


def test_python_concatenation_and_augmented_assignment() -> None:
    t = py('''
        import uuid
        def build_prompt():
            prompt = "You are Pilot, a flight-operations assistant.\\n"
            prompt += "Request id: " + str(uuid.uuid4())
            return prompt
    ''')
    assert rendered(t) == "You are Pilot, a flight-operations assistant.\nRequest id: {str(uuid.uuid4())}"


def test_python_sections_appended_keep_their_order_and_loops_become_blocks() -> None:
    t = py('''
        def build_system_prompt(user, tools):
            parts = ["You are Atlas, an operations agent."]
            parts.append(f"User: {user.name}")
            for tool in tools:
                parts.append(f"- {tool.name}")
            parts.extend(["## Rules", "Be careful."])
            parts.insert(0, "# Header")
            return "\\n".join(parts)
    ''')
    assert rendered(t) == ("# Header\nYou are Atlas, an operations agent.\nUser: {user.name}\n"
                           "[for:- {tool.name}\n]## Rules\nBe careful.")
    (loop,) = t.prompts[0].blocks()
    assert loop.expr is not None and loop.expr.path == ("tools",) and loop.loop_vars == ("tool",)
    assert not loop.sorted


def test_python_sorted_iteration_marks_the_loop_sorted() -> None:
    t = py('''
        def build_system_prompt(tools):
            lines = ["You are Atlas, an operations agent with tools:"]
            ordered = sorted(tools, key=lambda t: t.name)
            for tool in ordered:
                lines.append(f"- {tool.name}")
            names = "\\n".join(f"* {n}" for n in sorted(t.name for t in tools))
            return "\\n".join(lines) + names
    ''')
    assert all(b.sorted for b in t.prompts[0].blocks())


def test_python_set_iteration_reads_as_unordered() -> None:
    t = py('''
        def build_system_prompt(plugins):
            caps = {c for p in plugins for c in p.capabilities}
            return "You are Nexus, an integration agent. You can:\\n" + "\\n".join(f"- {c}" for c in caps)
    ''')
    (loop,) = t.prompts[0].blocks()
    assert loop.expr is not None and "set" in loop.expr.calls


def test_python_dedent_and_cleandoc() -> None:
    t = py('''
        import inspect, textwrap
        def system_prompt(cwd):
            return textwrap.dedent(f"""\\
                You are Quill, a coding agent.
                  Working directory: {cwd}
                """)
        INSTRUCTIONS = inspect.cleandoc("""
            Always run the tests.
            Never push to main.
        """)
    ''')
    texts = [rendered(load_text("a.py", t.source.split("INSTRUCTIONS")[0]))]
    assert texts == ["You are Quill, a coding agent.\n  Working directory: {cwd}\n"]
    cleaned = next(p for p in t.prompts if p.name == "INSTRUCTIONS")
    assert "".join(s.text for s in cleaned.segments if isinstance(s, Text)) == "Always run the tests.\nNever push to main."


def test_python_helpers_are_followed_two_levels_and_no_further() -> None:
    t = py('''
        from datetime import datetime
        def _now():
            return datetime.now()
        def _stamp():
            return _now().strftime("%H:%M:%S")
        def _three():
            return _stamp()
        def build_system_prompt():
            return f"You are Metronome, a build assistant. Built {_stamp()}. Again {_three()}."
    ''')
    two, three = slots(t)
    assert "now" in two.expr.calls and two.expr.format_spec == "%H:%M:%S"
    assert "now" not in three.expr.calls  # three calls deep: known by its name only


def test_python_memoised_builder_and_module_value_are_pinned() -> None:
    t = py('''
        from datetime import datetime
        from functools import lru_cache
        BOOTED = datetime.now().isoformat()
        @lru_cache(maxsize=1)
        def build_system_prompt(user_name):
            return f"You are Relay. Started {datetime.now():%H:%M}. Booted {BOOTED}. For {user_name}."
    ''')
    started, booted, user = slots(t)
    assert started.expr.pinned and "lru_cache" in started.expr.pinned
    assert booted.expr.pinned and "module-level" in booted.expr.pinned
    assert user.expr.pinned is None  # a parameter: per call, not per process


def test_python_a_class_field_is_made_per_instance_a_class_attribute_at_import() -> None:
    # MetaGPT's actions: `i_context: RunCodeContext = Field(default_factory=...)`, read as
    # `self.i_context.code` in the prompt, was "computed once per process, at import".
    t = py("""
        from typing import ClassVar
        from pydantic import BaseModel, Field
        PROMPT = "You are QA. Always run the tests. Never guess. {code} {shared} {cached}"
        class RunCode(BaseModel):
            i_context: RunCodeContext = Field(default_factory=RunCodeContext)
            shared: ClassVar[Settings] = load_settings()
            cached = load_cache()
            def run(self):
                return PROMPT.format(code=self.i_context.code, shared=self.shared.name, cached=self.cached.docs)
    """)
    field, class_var, attribute = slots(t)
    assert field.expr.pinned is None
    assert class_var.expr.pinned and attribute.expr.pinned and "module-level" in attribute.expr.pinned


def test_ts_an_instance_field_is_made_per_instance_a_static_one_at_import() -> None:
    t = ts("""
        export class RunCode {
          private ctx = loadContext();
          static shared = loadShared();
          run() {
            return this.ask({ system: `You are QA. Always run the tests. ${this.ctx.docs} ${RunCode.shared.docs}` });
          }
        }
    """)
    field, static = slots(t)
    assert field.expr.pinned is None
    assert static.expr.pinned and "module-level" in static.expr.pinned


def test_python_what_a_client_made_at_import_answers_is_not_made_at_import() -> None:
    # mem0's examples: `memory_client = MemoryClient(...)` at module level, and in the
    # handler `memories = memory_client.search(...)` was "computed once per process".
    t = py("""
        from datetime import datetime
        BOOTED = datetime.now()
        client = MemoryClient(api_key="k")
        def handler(q):
            memories = client.search(q)
            return agent.run(system=f"You are Relay. Always be brief. Booted {BOOTED.isoformat()}. {memories}")
    """)
    booted, memories = slots(t)
    assert booted.expr.pinned and memories.expr.pinned is None


def test_ts_what_a_client_made_at_import_answers_is_not_made_at_import() -> None:
    t = ts("""
        const BOOTED = new Date();
        const client = new MemoryClient({ apiKey: "k" });
        export async function handler(q: string) {
          const memories = await client.search(q);
          return agent.run({ system: `You are Relay. Always be brief. Booted ${BOOTED.toISOString()}. ${memories}` });
        }
    """)
    booted, memories = slots(t)
    assert booted.expr.pinned and memories.expr.pinned is None


def test_python_adk_instruction_placeholders_are_the_session_state() -> None:
    # Google ADK fills `{key}` in an agent's instruction from the session state on every
    # invocation: its samples' "Current time: {_time}" (a callback sets it to the clock) read
    # as a static prompt. JSON braces are left as written, as ADK leaves them.
    t = py("""
        from google.adk.agents import Agent

        root_agent = Agent(
            model="gemini-2.0-flash",
            instruction=\"\"\"\\
        You are an agent that helps users with their calendar.
        Reply as {"event": "..."} only.
        Current user: {user:name} ({userInfo?})
        Current time: {_time}
        \"\"\",
        )
    """)
    names = [s.expr.source for s in slots(t)]
    assert names == ["user:name", "userInfo", "_time"]
    assert [s.expr.path for s in slots(t)] == [("user", "name"), ("userInfo",), ("_time",)]
    assert [at(t, s) for s in slots(t)] == [(9, 15), (9, 28), (10, 15)]
    assert '{"event": "..."}' in rendered(t)
    # Outside an ADK agent the same braces are text, as `str` leaves them.
    assert slots(py('client.run(instructions="You are an agent. Always be brief. Now: {_time}")\n')) == []


def test_python_a_function_decorated_as_a_system_prompt_returns_prompt_text() -> None:
    # pydantic-ai adds what `@agent.system_prompt` and `@agent.instructions` functions
    # return to the system prompt of each run, whatever the function is called and however
    # short the text ("Now: {datetime.now()}" was left out as no prompt).
    t = py("""
        from datetime import datetime
        from pydantic_ai import Agent

        agent = Agent("openai:gpt-4o", system_prompt="You are a travel agent. Always answer briefly.")

        @agent.system_prompt(dynamic=True)
        def add_the_date() -> str:
            return f"The date is {datetime.now():%Y-%m-%d %H:%M}."

        @agent.instructions
        def add_time() -> str:
            return f"Now: {datetime.now()}"

        def helper() -> str:
            return f"At {datetime.now()}"

        @mcp.prompt()
        def greeting(name: str) -> str:  # an MCP server's prompt: a user message
            return f"Hello {name}, it is {datetime.now()}"
    """)
    assert [p.name for p in t.prompts] == ["system_prompt=", "add_the_date()", "add_time()"]
    assert [s.expr.format_spec for s in slots(t)] == ["%Y-%m-%d %H:%M", None]


def test_python_langchain_chat_templates_fill_their_variables() -> None:
    # LangChain formats a chat prompt template's messages with str.format semantics on every
    # invoke: "Today is {current_date}" in its system message read as static text.
    t = py("""
        from langchain_core.prompts import ChatPromptTemplate, SystemMessagePromptTemplate

        chat = ChatPromptTemplate.from_messages([
            ("system", 'You are the assistant of {company}. Today is {current_date}. Reply as {{"a": 1}}.'),
            ("human", "{question}"),
        ])
        single = SystemMessagePromptTemplate.from_template("You are a support agent for {customer_name}, always kind.")
        mustache = ChatPromptTemplate.from_messages([("system", "You help {name} {{user}} with bills, briefly.")],
                                                    template_format="mustache")
        sent = llm.invoke([("system", "You are a plain assistant: {not_a_field} stays as written.")])
    """)
    assert [s.expr.source for s in slots(t)] == ["company", "current_date", "customer_name"]
    assert [at(t, s) for s in slots(t)] == [(5, 42), (5, 62), (8, 81)]
    texts = [seg.text for seg in t.prompts[0].segments if isinstance(seg, Text)]
    assert texts[-1] == '. Reply as {{"a": 1}}.'  # the escaped braces stay text


def test_ts_langchain_chat_templates_fill_their_variables() -> None:
    t = ts("""
        const chat = ChatPromptTemplate.fromMessages([
          ["system", "You are the assistant of {company}. Today is {current_date}. Always be brief."],
          ["human", "{question}"],
        ]);
        const moustache = ChatPromptTemplate.fromMessages([["system", "You help {name} with bills, always briefly."]],
                                                          { templateFormat: "mustache" });
    """)
    assert [(s.expr.source, at(t, s)) for s in slots(t)] == [("company", (3, 40)), ("current_date", (3, 60))]


def test_python_values_in_logging_and_user_turns_are_not_prompts() -> None:
    t = py('''
        import logging
        from datetime import datetime
        log = logging.getLogger()
        SYSTEM_PROMPT = "You are Beacon, a scheduling assistant for the clinic."
        def messages(q):
            log.info("built at %s", datetime.now())
            print(f"{datetime.now()}")
            return [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": f"Now: {datetime.now()}\\n{q}"}]
    ''')
    assert len(t.prompts) == 1 and not slots(t)


@pytest.mark.parametrize("call", [
    'client.messages.create(system=f"You are Harbor, the support bot. Session {sid}.")',
    'client.responses.create(instructions=f"You are Harbor, the support bot. Session {sid}.")',
    'Agent(name="x", system_prompt=f"You are Harbor, the support bot. Session {sid}.")',
    'SystemMessage(content=f"You are Harbor, the support bot. Session {sid}.")',
    'ChatPromptTemplate.from_messages([("system", f"You are Harbor, the support bot. Session {sid}.")])',
    'client.chat.completions.create(messages=[{"role": "developer", "content": f"You are Harbor, the support bot. Session {sid}."}])',
    'client.messages.create(system=[{"type": "text", "text": f"You are Harbor, the support bot. Session {sid}."}])',
])
def test_python_sinks_that_send_a_system_prompt(call: str) -> None:
    t = py(f'''
        def send(client, sid):
            return {call}
    ''')
    assert [s.expr.source for s in slots(t)] == ["sid"]


def test_python_long_instruction_text_is_a_prompt_without_a_name() -> None:
    t = py('''
        from datetime import datetime
        def make_guide():
            guide = f"""You are Mentor, a tutoring assistant for mathematics.
        Current time: {datetime.now():%H:%M}
        Always ask the student to try a step before you show it.
        Never give the final answer to a homework problem outright.
        Use plain language and define every symbol the first time you use it.
        """
            return guide
    ''')
    assert [s.expr.format_spec for s in slots(t)] == ["%H:%M"]


def test_text_whose_only_cues_are_headings_is_no_prompt() -> None:
    # graphrag's settings.yaml, written by an f-string: its comments start as Markdown
    # headings do, and each `{defaults.…}` was a value "retrieved on every request".
    yaml = "\n".join(["### Document processing settings ###", "", "input:",
                      "  type: {defaults.input.type} # [csv, text, json]", "## If blob storage is specified,",
                      "## a connection string must be given", "chunking:", "  size: {defaults.chunking.size}",
                      "  overlap: {defaults.chunking.overlap}", "### Storage settings ###", "storage:",
                      "  base_dir: {defaults.storage.base_dir}"])
    assert slots(py(f'INIT_YAML = f"""{yaml}"""\n')) == []
    headed = "# Role\n" + yaml.replace("### Storage", "You are the settings writer.\n### Storage")
    assert slots(py(f'GUIDE = f"""{headed}"""\n'))


def test_python_docstrings_and_short_strings_are_not_prompts() -> None:
    t = py('''
        """You are reading the docs of this module.
        Always read them. Never skip them.
        You should read every line of it, twice, and then read it again to be sure.
        This docstring is long enough to look like instructions to a model.
        """
        system = "linux"
        user_prompt = f"Question: {q}"
    ''')
    assert t.prompts == []


def test_python_config_prompt_names() -> None:
    source = '''
        def charter(team):
            TEAM_CHARTER = f"Team {team.lead} owns billing and its on-call rotation."
            return TEAM_CHARTER
    '''
    assert py(source).prompts == []
    assert [s.expr.source for s in slots(py(source, ("*_charter",)))] == ["team.lead"]


def test_python_several_prompts_in_source_order_and_merged_duplicates() -> None:
    t = py('''
        def planner_prompt(user):
            return f"You are Planner. You plan the week of {user.full_name} carefully."
        SUMMARY_PROMPT = "You summarise conversations for the weekly digest."
        def send(client, user):
            client.messages.create(system=planner_prompt(user))
    ''')
    assert [p.name for p in t.prompts] == ["planner_prompt()", "SUMMARY_PROMPT"]


def test_python_shell_file_and_environment_reads_are_named_by_what_they_read() -> None:
    t = py('''
        import os, subprocess
        from pathlib import Path
        def build_system_prompt():
            return (f"You are Patch, a review agent. {subprocess.check_output(['git', 'status'])} "
                    f"{Path('MEMORY.md').read_text()} {os.environ.get('SHELL')} {os.getenv('COMPANY')}")
    ''')
    assert [s.expr.path for s in slots(t)] == [("git_status",), ("MEMORY",), ("SHELL",), ("COMPANY",)]


def test_python_syntax_error_is_a_load_error_with_its_line() -> None:
    from promptlint.loaders import LoadError

    with pytest.raises(LoadError) as info:
        py("def broken(:\n    pass\n")
    assert info.value.line == 1


def test_python_positions_count_characters_not_bytes() -> None:
    t = py('SYSTEM_PROMPT = f"Vous êtes Atlas, l\'assistant — heure : {now()}."\n')
    (slot,) = slots(t)
    assert t.source[slot.span.start : slot.span.end] == "now()"


@pytest.mark.parametrize("end", ["\n", "", "\r"])
def test_python_a_lone_cr_ends_a_line_as_ast_counts_lines(end: str) -> None:
    # Python ends a line at a lone CR (an old Mac line end) too: ast puts this prompt on line
    # 2, which the reader's lines, split at "\n" only, placed past the source's end (without
    # a last "\n", an IndexError: "could not read the prompts it builds"). Found by
    # tools/fuzz_code.py.
    source = 'import os\rSYSTEM_PROMPT = f"You are Atlas, a coding agent. Now: {now()}"' + end
    t = load_text("builder.py", source)
    (slot,) = slots(t)
    assert t.source[slot.span.start : slot.span.end] == "now()"
    assert all(0 <= s.span.start <= s.span.end <= len(source) for s in t.prompts[0].segments)


def test_python_a_method_whose_self_has_a_default_is_inlined() -> None:
    # `self=None` is a default too: paired with the arguments left once `self` was dropped,
    # the defaults outnumbered them (a ValueError from zip). Found by tools/fuzz_code.py.
    t = py('''
        class Agent:
            def _tone(self=None, style="short"):
                return f"a {style} coding agent"
            def system_prompt(self):
                return "You are Atlas, " + self._tone() + "."
    ''')
    assert rendered(t) == "You are Atlas, a short coding agent."


def test_python_format_reads_an_index_as_str_format_does() -> None:
    # `{١}` is the decimal 1, `{²}` a digit but no decimal: str.format takes it for a name,
    # where int() raised a ValueError. Found by tools/fuzz_code.py.
    t = py('SYSTEM_PROMPT = "You are Atlas, a coding agent for {١} and {²}.".format("A", "B", **extra)\n')
    assert rendered(t) == "You are Atlas, a coding agent for B and {extra['²']}."


def test_python_a_string_times_a_digit_that_is_no_decimal_is_not_a_count() -> None:
    # `"…" * "²"`: isdigit() let int() see "²" (a ValueError, reported as a reader failure).
    t = py('SYSTEM_PROMPT = "You are Atlas, a careful coding agent. " * "²" + "Always cite the policy."\n')
    assert rendered(t) == '{"You are Atlas, a careful coding agent. " * "²"}Always cite the policy.'


# --------------------------------------------------------------------------- TypeScript / JavaScript


def test_ts_template_literal_concat_and_positions() -> None:
    t = ts('''
        const AGENT = "Nova";
        export const SYSTEM_PROMPT = `You are ${AGENT}, an assistant. Time: ${new Date().toISOString()}` + "\\n" + "Be brief.";
    ''')
    assert rendered(t) == "You are Nova, an assistant. Time: {new Date().toISOString()}\nBe brief."
    (slot,) = slots(t)
    assert at(t, slot)[0] == 3 and "toISOString" in slot.expr.calls
    assert t.source[slot.span.start : slot.span.end] == "new Date().toISOString()"


@pytest.mark.parametrize("name", ["prompt0", "PROMPT2", "prompt2Text", "systemPromptV2"])
def test_a_number_in_a_prompt_name_does_not_hide_it(name: str) -> None:
    from promptlint.loaders.code import is_prompt_name

    assert is_prompt_name(name)
    t = ts(f'''
        export const {name} = (user: string, now: string) => `You are helpful. Time: ${{now}}. Be brief.`;
    ''')
    assert rendered(t) == "You are helpful. Time: {now}. Be brief."
    assert not is_prompt_name("v2") and not is_prompt_name("2")


def test_ts_push_sequence_loop_and_join() -> None:
    t = ts('''
        export function buildSystemPrompt(user: User, tools: Record<string, Tool>): string {
          const lines: string[] = [];
          lines.push(`You are Nova, the channel assistant.`, `Speaker: ${user.displayName}`);
          for (const [name, tool] of Object.entries(tools)) {
            lines.push(`- ${name}: ${tool.description}`);
          }
          lines.unshift("# Header");
          return lines.join("\\n");
        }
    ''')
    assert rendered(t) == ("# Header\nYou are Nova, the channel assistant.\nSpeaker: {user.displayName}\n"
                           "[for:- {name}: {tool.description}\n]")
    (loop,) = t.prompts[0].blocks()
    assert loop.expr is not None and "entries" in loop.expr.calls and loop.loop_vars == ("name", "tool")


def test_ts_map_over_keys_sorted_or_not() -> None:
    unsorted = ts('''
        export const buildPrompt = (tools) => "You are Atlas, with tools:\\n" + Object.keys(tools).map((k) => `- ${k}`).join("\\n");
    ''')
    (loop,) = unsorted.prompts[0].blocks()
    assert not loop.sorted and "keys" in loop.expr.calls  # type: ignore[union-attr]
    ordered = ts('''
        export const buildPrompt = (tools) => "You are Atlas, with tools:\\n" +
          Object.keys(tools).sort((a, b) => a.localeCompare(b)).map((k) => `- ${k}`).join("\\n");
    ''')
    assert all(b.sorted for b in ordered.prompts[0].blocks())


def test_ts_plus_equals_string_raw_and_dedent_tag() -> None:
    t = ts('''
        import dedent from "dedent";
        let prompt = String.raw`You are Shell on C:\\Users\\dev, a terminal agent.`;
        prompt += dedent`
            Always quote paths.
            Platform: ${os.platform()}`;
    ''')
    text = rendered(t)
    assert text.startswith("You are Shell on C:\\Users\\dev, a terminal agent.")
    assert "\nAlways quote paths.\nPlatform: {os.platform()}" in text


@pytest.mark.parametrize("expression, spec", [
    ("new Date().toISOString().slice(0, 10)", "%Y-%m-%d"),
    ("new Date().toISOString().split('T')[0]", "%Y-%m-%d"),
    ("new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })", "%H:%M"),
    ("new Intl.DateTimeFormat('en', { dateStyle: 'full' }).format(new Date())", "%Y-%m-%d"),
    ("dayjs().format('YYYY-MM-DD HH:mm')", "YYYY-MM-DD HH:mm"),
    ("format(new Date(), 'yyyy-MM-dd')", "YYYY-MM-DD"),
])
def test_ts_clock_precision_is_read_from_the_expression(expression: str, spec: str) -> None:
    t = ts(f'export const SYSTEM_PROMPT = `You are Herald, a newsroom assistant. Today: ${{{expression}}}`;\n')
    (slot,) = slots(t)
    assert slot.expr.format_spec == spec


@pytest.mark.parametrize("length", ["0x10", "1e1", "16.0"])
def test_ts_an_iso_prefix_of_a_length_int_does_not_read_is_a_full_timestamp(length: str) -> None:
    # int() raised a ValueError on a number of another form. Found by tools/fuzz_code.py.
    t = ts(f'export const SYSTEM_PROMPT = `You are Herald, a newsroom assistant. Today: '
           f'${{new Date().toISOString().slice(0, {length})}}`;\n')
    (slot,) = slots(t)
    assert slot.expr.format_spec is None and "toISOString" in slot.expr.calls


def test_ts_sinks_roles_keys_class_fields_and_tsx() -> None:
    t = ts('''
        export async function ask(client, user, q) {
          return client.chat.completions.create({
            messages: [
              { role: "system", content: `You are Harbor, the support bot, helping ${user.name}.` },
              { role: "user", content: `${q} at ${new Date().toISOString()}` },
            ],
          });
        }
        class Bot { readonly instructions = `You are Bot, a helpful assistant for ${team.name}.`; }
    ''')
    assert sorted(s.expr.source for s in slots(t)) == ["team.name", "user.name"]
    tsx = ts('''
        export function Panel({ profile }) {
          const systemPrompt = `You are Concierge, the account assistant of ${profile.email}.`;
          return <Chat system={systemPrompt} />;
        }
    ''', path="panel.tsx")
    assert [s.expr.source for s in slots(tsx)] == ["profile.email"]


def test_js_memoised_module_const_logging_and_shell() -> None:
    t = ts('''
        const memoize = require("lodash/memoize");
        const { execSync } = require("child_process");
        const BOOT = new Date().toISOString();
        const getSystemPrompt = memoize(() => `You are Relay, a release agent. Boot ${BOOT}. Now ${Date.now()}. Git: ${execSync("git status")}.`);
        console.log(`built ${new Date()}`);
    ''', path="agent.cjs")
    boot, now, git = slots(t)
    assert boot.expr.pinned and now.expr.pinned and git.expr.path == ("git_status",)


def test_ts_process_env_reads_the_variable_name() -> None:
    t = ts('export const SYSTEM_PROMPT = `You are Atlas, deployed as ${process.env.COMPANY_NAME} on ${process.env.SHELL}`;\n')
    assert [s.expr.path for s in slots(t)] == [("COMPANY_NAME",), ("SHELL",)]


def test_ts_positions_count_characters_not_bytes() -> None:
    t = ts('export const SYSTEM_PROMPT = `Vous êtes Atlas — l’assistant ; heure : ${now()}`;\n')
    (slot,) = slots(t)
    assert t.source[slot.span.start : slot.span.end] == "now()"


def test_checking_python_does_not_import_tree_sitter(tmp_path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "agent.py"
    target.write_text('SYSTEM_PROMPT = f"You are Atlas, a coding agent. Now: {now()}"\n')
    code = ("import sys; from promptlint.api import check_paths; check_paths([sys.argv[1]]); "
            "print('tree_sitter' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(target)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("lines", [3, 600])
def test_a_long_plus_chain_reads_as_a_short_one(lines: int) -> None:
    # `a + b + c` leans left as deep as it is long: 600 lines of `"…" + value + "\\n" +` are
    # 1,800 levels, over the interpreter's recursion limit (1,000) if read recursively.
    body = "".join(f'    "rule {i}: " + str(now) + "\\n" +\n' for i in range(lines))
    want = "".join(f"rule {i}: {{str(now)}}\n" for i in range(lines)) + "end"
    python = py(f'SYSTEM_PROMPT = (\n{body}    "end")\n')
    assert rendered(python) == want
    last = body.splitlines()[-1]
    assert at(python, slots(python)[-1]) == (lines + 1, last.index("str(now)") + 1)
    body = "".join(f'  "rule {i}: " + String(now) + "\\n" +\n' for i in range(lines))
    typescript = ts(f'const systemPrompt =\n{body}  "end";\n')
    assert rendered(typescript) == want.replace("{str(now)}", "{String(now)}")
    last = body.splitlines()[-1]
    assert at(typescript, slots(typescript)[-1]) == (lines + 1, last.index("String(now)") + 1)


def test_a_plus_chain_grown_in_place_is_held_to_the_bound_of_one_value(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fold of a `+` chain grows its value in place, a link at a time: each link is small,
    # the value is not, and it is refused as a value built whole past the bound is.
    from promptlint.loaders.base import LoadError
    from promptlint.loaders.code import values

    monkeypatch.setattr(values, "MAX_PIECES", 50)
    for links, refused in ((20, False), (60, True)):
        chain = "".join(f' + "rule {i}; " + str(now)' for i in range(links))
        for load, source in ((py, f'SYSTEM_PROMPT = "You are Atlas."{chain}\n'),
                             (ts, f'const systemPrompt = "You are Atlas."{chain.replace("str(now)", "String(now)")};\n')):
            if refused:
                with pytest.raises(LoadError, match="a value of over 50 pieces"):
                    load(source)
            else:
                assert len(load(source).prompts) == 1


# -- the instruction cues are counted in a time linear in the text -------------------------------

from hypothesis import given as _given  # noqa: E402
from hypothesis import strategies as _st  # noqa: E402

# The cues as first written: `^\s*` read across every blank line after each line start.
_CUES_AS_WRITTEN = re.compile(
    r"(?im)\byou are\b|\byou (?:must|should|will|can|may)\b|^\s*(?:always|never|do not|don't)\b|^#{1,3} \w|"
    r"\byour (?:role|task|job|goal)\b|\bas an? (?:ai|assistant|agent)\b|\brespond\b|\bassistant\b")


@_given(_st.lists(_st.sampled_from(["\n", " ", "\t", "\r", "\x0b", "\u2028", "always", "Never", "do not", "# h",
                                    "you are", "x", "respond", "\u3000"]), max_size=24).map("".join))
def test_instruction_cues_count_as_first_written(text: str) -> None:
    from promptlint.loaders.code import prompts

    assert len(prompts._INSTRUCTION_CUES.findall(text)) == len(_CUES_AS_WRITTEN.findall(text))


def test_a_string_of_blank_lines_is_read_once() -> None:
    from promptlint.loaders.code import prompts

    # 100,000 "\n " took minutes when each line start read on to the text's end.
    assert not prompts.looks_like_instructions("\n " * 100_000)
    assert prompts.looks_like_instructions("\n " * 100_000 + "\nAlways cite.\n\nYou are Atlas." + " x" * 100)


@pytest.mark.parametrize(("path", "source"), [
    ("agent.py", 'import os\nSYSTEM_PROMPT = f"You triage issues of {os.getenv(\'OWNER\', \'google\')}/{os.environ[\'REPO\']}.'
                 ' Always label each issue, never close one."\n'),
    ("agent.ts", "export const SYSTEM_PROMPT = `You triage issues of ${process.env.OWNER}. Always label each issue.`;\n"),
])
def test_a_variable_of_the_environment_is_one_value_per_process(path: str, source: str) -> None:
    # adk-python's triaging sample: `os.getenv("OWNER")` read as a signed-in user (error),
    # where the environment is the same for every request of a deployment.
    from promptlint.api import check_text

    findings = [f for f in check_text(source, path=path).findings if f.rule == "PC101"]
    assert findings and {(f.kind, f.frequency) for f in findings} == {("environment", "per-session")}
    assert all("read from the environment" in f.message for f in findings)


# -- the sniff before a code file is parsed answers as its regex did -------------------------------

_SNIFF_AS_WRITTEN = re.compile(rb"(?i)prompt|instruction|preamble|persona|system")
_WORD = re.compile(rb"[A-Za-z0-9_$]*")


def _sniff_as_written(data: bytes, prompt_names: tuple[str, ...]) -> bool:
    """The sniff as first written: case-insensitive regexes over the bytes (4.4 s over a walk's
    145 MB of code, where the lowered bytes and ``bytes.find`` take 0.5 s)."""
    from promptlint.loaders.code.prompts import is_prompt_name, is_sink_key

    if re.search(rb"(?i)\byou are\b", data):
        return True
    for match in _SNIFF_AS_WRITTEN.finditer(data):
        start = match.start()
        while start > 0 and _WORD.fullmatch(data[start - 1 : start]):
            start -= 1
        word = data[start : _WORD.match(data, match.start()).end()].decode("ascii", errors="replace")  # type: ignore[union-attr]
        if is_prompt_name(word) or is_sink_key(word):
            return True
    return any(re.search(re.escape(p.strip("*?[]")).encode(), data, re.IGNORECASE) for p in prompt_names
               if p.strip("*?[]"))


@_given(_st.lists(_st.sampled_from([b"you", b" ", b"are", b"You Are", b"SYSTEM", b"prompt", b"_", b"x", b"\xc3\x84",
                                    b"\n", b"Prompts", b"user", b"$", b"instructionS", b"persona", b"PreAmble",
                                    b"systemctl", b"9", b"\xc4"]), max_size=16).map(b"".join),
        _st.sampled_from([(), ("*Brief*",), ("x$*",), ("\u00c4rger",)]))
def test_the_code_sniff_answers_as_its_regex_did(data: bytes, prompt_names: tuple[str, ...]) -> None:
    from promptlint.loaders.code.prompts import may_hold_prompt

    assert may_hold_prompt(data, prompt_names) == _sniff_as_written(data, prompt_names)


def test_the_python_readers_children_are_asts_but_the_operator_and_context_singletons() -> None:
    # The reader's walks read each node's fields straight (ast.iter_child_nodes went
    # through two generators: a third of reading a module); every child but `ast.Load()`,
    # `ast.Add()` and their kind, in the same order, over every node of promptlint's source.
    import ast
    from pathlib import Path

    from promptlint.loaders.code.python.nodes import children

    singletons = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
    root = Path(__file__).resolve().parents[1] / "promptlint"
    walked = 0
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            assert children(node) == [c for c in ast.iter_child_nodes(node) if not isinstance(c, singletons)]
            walked += 1
    assert walked > 100_000


def test_what_the_typescript_reader_collects_is_what_a_walk_over_every_node_finds() -> None:
    # Collected by a tree-sitter query (a walk over every node in Python took a third of
    # reading a module), in both orders the reader takes them: the document's (functions
    # read) and a walk's from the last child to the first (which of two same-named helpers
    # is kept), an enclosing node first where two share a span. Over the fuzz's files, half
    # of them broken (error nodes), and a statement that is one function expression.
    import random

    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import fuzz_code

    from promptlint.loaders.code.typescript import nodes

    def walk(root, reverse: bool):  # type: ignore[no-untyped-def]
        stack, out = [root], []
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(node.named_children if reverse else reversed(node.named_children))
        return out

    rng = random.Random(0)  # its 5th file (broken) holds a statement the query captures after its function
    sources = [("typescript", "p.ts", "function () { const system = `You are ${x}.`; return 1 }\nfunction a() {}\n")]
    sources += [fuzz_code.code(rng) for _ in range(400)]
    checked = 0
    for syntax, name, source in sources:
        if syntax == "python":
            continue
        grammar = nodes.grammar_for(syntax, name)
        root = nodes.parse(source, grammar).root_node
        found = nodes.collected(root, grammar)

        def kept(node) -> bool:  # type: ignore[no-untyped-def]
            return node.type.endswith(nodes._COLLECTED_SUFFIXES) or node.type in nodes._FUNCTIONS or node.type in (
                "variable_declarator", "method_definition")

        assert [n.id for n, _ in found] == [n.id for n in walk(root, reverse=False) if kept(n)]
        by_walk = sorted(found, key=lambda pair: (-pair[0].end_byte, pair[0].start_byte, pair[1]))
        assert [n.id for n, _ in by_walk] == [n.id for n in walk(root, reverse=True) if kept(n)]
        checked += 1
    assert checked > 150
