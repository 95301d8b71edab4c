"""The page and the app an akan chat runs on, as Python values: what a user of the library builds.

These are the reference's own setup types. They describe a page (its route, what it renders, the tools
and store keys its mounted components publish, a form, ``akanjs/ui`` components, guides and zones) and
the app around the chat (the LLM adaptor, an attachment reader, ``prompt()`` commands, the relay's guard,
a voice engine). They are frozen dataclasses shaped for Python: a page tool is a callable, the attachment
reader is a callable, an adaptor's failing turns are a mapping. The harness translates its scenario
vocabulary into them (``conformance.players.akan``); nothing here knows about scenarios or YAML.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Scalar = str | int | float
"""A JSON scalar an enum argument, a oneOf option or an error value may hold."""
Message = dict[str, Any]
"""One transcript message in the provider-neutral wire shape (see ``reference.akan.wire``)."""


# -- the LLM adaptor ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Accepts:
    """Attachment kinds an LLM adaptor declares it can read (text is always readable)."""

    image: bool = False
    document: bool = False


@dataclass(frozen=True)
class LlmSettings:
    """What ``option.setLlm`` was given besides the API key: they belong to the adaptor role."""

    model: str | None = None
    host: str | None = None


@dataclass(frozen=True)
class LlmOption:
    """What the function form of ``setLlm`` returns: the key as well as the settings."""

    api_key: str | None = None
    model: str | None = None
    host: str | None = None


LlmOptionFunction = Callable[[Mapping[str, Any]], LlmOption]
"""``setLlm((options) => ...)``: called with the app's options (``{"env": ...}``)."""


@dataclass(frozen=True)
class ErrorKey:
    """An error as it crosses the relay: a dictionary key and its interpolation values, unresolved."""

    key: str
    values: Mapping[str, Scalar] = field(default_factory=dict)

    def wire(self) -> dict[str, object]:
        return {"key": self.key, "values": dict(self.values)}


DEFAULT_ADAPTOR = "deepseek"
"""The adaptor holding the LLM role when the app applies none (model and host: ``llm.DEFAULT_PROVIDER``)."""


@dataclass(frozen=True)
class Adaptor:
    """The LLM adaptor holding the chat's role. The default is DeepSeek, which accepts neither kind.

    ``fails`` maps a turn request (1-based, summaries not counted) to what the adaptor answers instead of
    asking the model: ``None`` for ``null`` (no model configured), an ``ErrorKey`` for a thrown ``Err``.
    """

    name: str = DEFAULT_ADAPTOR
    settings: LlmSettings | None = None
    accepts: Accepts | None = None
    """None: whatever the named adaptor declares by default."""
    api_key: bool = True
    """False: ``setLlm`` was given no apiKey (the app still boots)."""
    on_delta: bool = True
    """False: the adaptor ignores ``onDelta`` and only returns the finished reply."""
    fails: Mapping[int, ErrorKey | None] = field(default_factory=dict)
    option_function: LlmOptionFunction | None = None
    """``setLlm`` given a function of the app's options instead of an object (akan.llm.set-llm-forms)."""
    environment: Mapping[str, str] = field(default_factory=dict)
    """The server's environment variables; the app's env object carries the same values."""


# -- tools the page declares -------------------------------------------------------------------------------

ArgType = Literal["string", "integer", "number", "boolean", "enumOf", "model", "Any", "Map"]


@dataclass(frozen=True)
class ToolArg:
    """One ``.arg(name, type)`` step of an ``st.tool`` declaration.

    ``enumOf`` takes ``values`` (an enum class); ``model``, ``Any`` and ``Map`` are types no JSON Schema
    describes. ``one_of`` is the ``{ oneOf: [...] }`` option: the values the argument may take.
    """

    name: str
    type: ArgType = "string"
    values: Sequence[Scalar] | None = None
    one_of: Sequence[Scalar] | None = None
    later_one_of: Sequence[Scalar] | None = None
    """The ``oneOf`` list later renders pass (a set that fills in after the first render); a declaration
    is mount-static, so only ``one_of`` is published (akan.tool.declaration-is-mount-static)."""

    def __post_init__(self) -> None:
        if (self.type == "enumOf") != (self.values is not None):
            raise ValueError(f"ToolArg {self.name!r}: give `values` exactly when type is enumOf")


ToolBody = Callable[[dict[str, Any]], Any]
"""What a call runs: arguments in, result out. A ``str`` is the result text as it is; any other value is
sent as JSON, the way a browser's ``JSON.stringify`` writes it."""


def _returns_nothing(arguments: dict[str, Any]) -> None:
    return None


@dataclass(frozen=True)
class PageTool:
    """A tool a mounted component declares (an ``st.tool``).

    A falsy ``name`` declares the tool for the person's click only. A tool can hold its turn open:
    ``asks`` opens a question card whose answer (the user's next message) is the call's result, and
    ``settles=False`` never returns by itself, so the turn waits until Stop, ``/new`` or a reload.
    """

    name: str | None
    run: ToolBody = _returns_nothing
    description: str = ""
    args: Sequence[ToolArg] = ()
    zone: str | None = None
    """The zone it is mounted inside; None, outside any."""
    shared: bool = False
    """Declared with ``shared: true``: repeats are one tool."""
    settles: bool = True
    asks: str | None = None
    route: str | None = None
    """The route prefix whose page mounts it; None, mounted on every route."""
    html_after: str | None = None
    """The page's HTML once a call's work commits, a moment after the body returns (None: no change)."""
    on_abort: Literal["ignore", "honour"] = "ignore"
    """What the body does with ``AgentAbort.current`` when Stop ends its turn: run on, or clean up."""
    chain: Literal["render", "module"] = "render"
    """Where ``st.tool(...)`` and its ``.arg`` steps are called: in the component's render with ``.exec``
    (one statement), or once at module scope, outside any render, with only ``.exec(fn)`` in the render."""

    def __post_init__(self) -> None:
        if self.asks is not None and not self.settles:
            raise ValueError(f"PageTool {self.name!r}: `asks` and `settles=False` cannot be combined")


# -- files and the app's reader ----------------------------------------------------------------------------


@dataclass(frozen=True)
class File:
    """A file as the browser hands it over: name, MIME type, size in bytes and (optionally) content."""

    name: str
    type: str = "application/octet-stream"
    size: int | None = None
    """Bytes; None means the UTF-8 length of ``text``."""
    text: str | None = None
    data: str | None = None
    """Base64 content of a binary file."""

    def __post_init__(self) -> None:
        if self.size is None and self.text is None:
            raise ValueError(f"File {self.name!r}: give `size` (bytes) or `text` (its content)")

    @property
    def byte_size(self) -> int:
        return self.size if self.size is not None else len((self.text or "").encode("utf-8"))


@dataclass(frozen=True)
class ReaderResult:
    """The ``MessageAttachment`` an app's reader produces for a file."""

    kind: Literal["image", "text", "document"]
    text: str | None = None
    data: str | None = None


Reader = Callable[[File], ReaderResult | None]
"""The app's attachment reader: a result, or None to hand the file to the built-in reader."""


# -- slash commands ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PromptMessage:
    """One message a ``prompt()`` endpoint returns: its text and the images it carries (``Msg.image``)."""

    text: str = ""
    images: Sequence[File] = ()


@dataclass(frozen=True)
class Prompt:
    """A ``prompt()`` endpoint, reachable as ``/<name>``.

    ``{param}`` in a message's text is replaced by the argument in that parameter's position.
    ``allowed=False``: the guard refuses the prompt's GET (HTTP 403) when it runs.
    """

    name: str
    messages: Sequence[PromptMessage]
    params: Sequence[str] = ()
    allowed: bool = True
    desc: str | None = None
    """The prompt's dictionary ``.desc()``, which the ``/`` menu shows beside it."""


# -- store keys, local state, forms, components, guides ----------------------------------------------------


@dataclass(frozen=True)
class StateKey:
    """A store key a mounted component subscribes (``st.use``, ``st.sel``, ``st.ref``), as its model has it.

    ``secret`` are fields the model flags hidden or secret; ``mask`` names the fields a ``mask:`` model
    masks (None: no mask model); ``visual`` are ``field.visual`` fields; ``agent=False`` keeps it off.
    """

    value: Any = None
    agent: bool = True
    secret: Sequence[str] = ()
    mask: Sequence[str] | None = None
    visual: Sequence[str] = ()
    zone: str | None = None


SetType = Literal["string", "integer", "number", "boolean", "model", "Any", "Map"]


@dataclass(frozen=True)
class LocalState:
    """A value a component publishes with ``st.useState(name, initial, meta)`` or ``st.expose``.

    ``set`` is useState's ``meta.set`` type; None, the agent may only read it.
    """

    api: Literal["useState", "expose"]
    name: str | None
    value: Any = None
    set: SetType | None = None
    zone: str | None = None

    def __post_init__(self) -> None:
        if self.api == "expose" and self.set is not None:
            raise ValueError(f"st.expose {self.name!r}: only st.useState takes `set`")


ControlType = Literal[
    "text", "number", "phone", "select", "switch", "list", "draggable", "parent", "children", "parentId",
    "childrenId", "textList",
]


@dataclass(frozen=True)
class FormControl:
    """The control drawing a form field; ``on_change`` hands it the setter by ``reference`` or ``inline``."""

    type: ControlType = "text"
    on_change: Literal["reference", "inline"] = "reference"
    disabled: bool = False
    transform: Literal["none", "upper", "lower", "trim", "phone"] | None = None


@dataclass(frozen=True)
class RelationOption:
    """One document of a related slice, as a picker lists it."""

    id: str
    label: str = ""


@dataclass(frozen=True)
class FormField:
    """One field of the form's model; ``control`` None means no control draws it on this screen."""

    name: str
    kind: Literal["plain", "rows", "composite", "relation", "base"] = "plain"
    flag: Literal["hidden", "secret"] | None = None
    value: Any = None
    control: FormControl | None = None
    options: Sequence[RelationOption] = ()


@dataclass(frozen=True)
class PostSet:
    """A ``_postSet<Field>`` hook declared on the form's store.

    When it runs it appends the field's new value to the array field ``appends_to`` (through that field's
    generated ``add`` action). ``shape`` is how the subclass declares it: a ``method`` (on the prototype),
    or a class ``field`` or ``getter`` holding the function.
    """

    name: str
    appends_to: str
    shape: Literal["method", "field", "getter"] = "method"


@dataclass(frozen=True)
class Form:
    """A model form on the screen and its subscriptions (``st.use.<model>Form()``)."""

    model: str
    fields: Sequence[FormField]
    subscriptions: int = 1
    agent: bool = True
    post_sets: Sequence[PostSet] = ()


UiComponentType = Literal[
    "Model.NewWrapper", "Model.New", "Model.EditWrapper", "Model.ViewWrapper", "Model.RemoveWrapper",
    "Model.Remove", "Model.SureToRemove", "Tab", "Dialog", "Dropdown", "Model.EditModal", "Model.ViewModal",
    "Model.ViewEditModal", "Data.ListContainer", "Model.AdminPanel", "Load.Units", "Load.Pagination",
    "Data.Pagination", "Layout.Sider", "System.SelectLanguage", "Link.Back", "System.ThemeToggle",
]


@dataclass(frozen=True)
class UiComponent:
    """An ``akanjs/ui`` component mounted on the screen; it publishes its own tools."""

    type: UiComponentType
    namespace: str | None = None
    type_name_to_remove: bool = False
    open: bool = False
    """A modal or dropdown that is open when the chat starts."""
    model: str | None = None
    """The model a list or pagination component shows, which completes an ``...Of`` tool name."""
    confirm_close: bool = False
    """A ``Dialog.Modal`` with ``confirmClose``: its dismissal asks the person first."""
    on_cancel: bool = False
    """A ``Dialog.Modal`` with an ``onCancel`` handler."""


@dataclass(frozen=True)
class Guide:
    """An ``Agent.Guide`` rendered by the layout of ``layout`` (a route prefix), or inside a zone."""

    text: str
    layout: str = "/"
    zone: str | None = None


@dataclass(frozen=True)
class Store:
    """A ``store(...)`` class the app defines: its methods and fields, which put nothing on the surface by
    themselves (akan.surface.no-derivation-from-store-class)."""

    name: str
    methods: Sequence[str] = ()
    fields: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Page:
    """The page the chat sits on, as its mounted components make it.

    ``screen`` is the context text each turn carries; ``html`` is the rendered page ``readScreen`` and
    ``highlight`` read (None: readScreen reads ``screen``). ``zone`` makes the chat that zone's agent.
    """

    route: str = "/"
    screen: str = ""
    html: str | None = None
    tools: Sequence[PageTool] = ()
    state: Mapping[str, StateKey] = field(default_factory=dict)
    local_state: Sequence[LocalState] = ()
    guides: Sequence[Guide] = ()
    form: Form | None = None
    components: Sequence[UiComponent] = ()
    zone: str | None = None
    stores: Sequence[Store] = ()
    """The app's store classes, whether or not any component reads them."""
    module_docs: Sequence[str] = ()
    """The text of the modules' ``*.abstract.md`` developer docs (akan.guide.abstract-md-never-served)."""
    store_actions: Sequence[str] = ()
    """Actions the page's stores define, reachable in code as ``st.do.<name>``
    (akan.tool.st-do-alone-reaches-nobody)."""


# -- the relay, the voice engine, compaction ---------------------------------------------------------------

GuardSpec = str | Sequence[str] | None
"""A guard class name (``Public``, ``None``, ``SignedIn`` or a role), a list that must all pass, or null."""


class Unset(enum.Enum):
    """Marks a setting the app never made (distinct from making it with ``None``)."""

    UNSET = "unset"


UNSET = Unset.UNSET


@dataclass(frozen=True)
class Caller:
    """Who is calling the relay: what the app's guards test."""

    signed_in: bool = False
    roles: Sequence[str] = ()


@dataclass(frozen=True)
class Relay:
    """``runAgentTurn`` and ``option.setAgentAccess`` as the app configures them.

    ``access`` is the app's ``setAgentAccess`` argument (``UNSET``: the app never calls it);
    ``library_access`` a guard a library set before the app's option.ts ran; ``served=False`` is a
    server running with ``AKAN_AGENT=false``; ``accept`` the header the runner sends (None: the default).
    """

    access: GuardSpec | Unset = UNSET
    library_access: GuardSpec = None
    served: bool = True
    caller: Caller = Caller()
    accept: str | None = None


@dataclass(frozen=True)
class Voice:
    """The chat's ``VoiceEngine``: whether it is available and how long one spoken sentence takes."""

    available: bool = True
    sentence_ms: int = 1000


SLOTS: tuple[str, ...] = (
    "AgentLauncher", "AgentBubble", "AgentComposer", "AgentApproval", "AgentQuestion", "AgentMenu",
    "AgentMarkdown", "AgentCode",
)
"""akan.panel.slots-replace-one-part: the parts ``_overrides.tsx`` can replace one at a time."""


@dataclass(frozen=True)
class ChatPanel:
    """The chat's panel as the app mounts it: its props and its ``_overrides.tsx``.

    ``open`` is the controlled ``open`` prop (None: the chat keeps its own state, starting as
    ``initially_open``); ``overrides`` maps a slot to whether the replacement wraps the default it replaces.
    ``width`` is the viewport's width in CSS pixels.
    """

    open: bool | None = None
    initially_open: bool = True
    launcher: bool = True
    class_name: str | None = None
    launcher_class_name: str | None = None
    panel_class_name: str | None = None
    intro: str | None = None
    header: Sequence[str] = ()
    overrides: Mapping[str, bool] = field(default_factory=dict)
    shortcut: bool = True
    width: int = 1280
    persist: bool = False
    """The ``persist`` prop given at all."""
    storage: Literal["session", "local"] | None = None
    """``persist={ storage }``: None when ``persist`` is given without it (or not given)."""
    agent_chat: bool = False
    """``AgentChat`` is overridden: the whole panel is the app's."""
    session: Literal["own", "provider", "zone"] = "own"
    """Whose session the chat uses: one it made, an ``AgentProvider``'s or an ``Agent.Zone``'s."""


@dataclass(frozen=True)
class Compaction:
    """The chat's ``compact`` option: ``at`` in estimated tokens (0 turns it off), ``keep`` newest messages.

    None means the default (``AkanPolicies.default_at_tokens`` / ``default_keep``).
    """

    at: int | None = None
    keep: int | None = None
