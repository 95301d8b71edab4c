"""An order page with two tools, a photo and a receipt attached, and ``/compact``: the akan chat, offline.

The page (``/orders/7``) publishes ``lookupOrder`` and ``issueRefund``; the customer attaches a photo of
the damage and the receipt, asks for a refund, then compacts the conversation and asks a follow-up. The
model is scripted, so the run needs no network and no key. Each line of the conversation is printed as it
happens, with the rules of the akan specification that the event shows at work.

Run it with ``python examples/akan/order_desk.py``.
"""

from __future__ import annotations

import json
from typing import Any

from reference.akan import ChatSession, File, Page, PageTool, ToolArg
from reference.providers import ModelResponse, ScriptedProvider, ToolCall
from reference.record import Recorder

ORDERS = {"7": {"item": "Blender B-200", "paid": 49.90, "status": "delivered"}}
REFUNDS: list[dict[str, Any]] = []


def lookup_order(arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": arguments["id"], **ORDERS[arguments["id"]]}


def issue_refund(arguments: dict[str, Any]) -> dict[str, Any]:
    REFUNDS.append(arguments)
    return {"refunded": ORDERS[arguments["id"]]["paid"], "reason": arguments["reason"]}


PAGE = Page(
    route="/orders/7",
    screen="Order #7: Blender B-200, delivered, paid 49.90 EUR.",
    tools=[
        PageTool("lookupOrder", lookup_order, "Look an order up by its id.", [ToolArg("id")]),
        PageTool(
            "issueRefund", issue_refund, "Refund an order in full.",
            [ToolArg("id"), ToolArg("reason", "enumOf", values=["damaged", "late", "other"])],
        ),
    ],
)

MODEL = [
    ModelResponse(tool_calls=[ToolCall(name="lookupOrder", arguments={"id": "7"})]),
    ModelResponse(tool_calls=[ToolCall(name="issueRefund", arguments={"id": "7", "reason": "broken"})]),
    ModelResponse(tool_calls=[ToolCall(name="issueRefund", arguments={"id": "7", "reason": "damaged"})]),
    ModelResponse(text="I have refunded the 49.90 EUR for the blender on order 7."),
    ModelResponse(text="Order 7: blender arrived damaged; refund of 49.90 EUR issued."),  # the summary
    ModelResponse(text="Refunds reach your card within five business days."),
]

#: What an event shows at work, by event type (and outcome): the rule ids of the akan specification.
RULES = {
    "attachment_added": "akan.attachments.refusal-at-paperclip",
    "attachment_refused": "akan.attachments.refusal-at-paperclip",
    "relay": "akan.mount.relay-never-executes-tools",
    "tool_call": "akan.surface.declaration-is-the-surface",
    "tool_result:refused": "akan.tool.enum-of-refuses-off-values",
    "compaction:command": "akan.compaction.command-keeps-nothing",
    "compaction:auto": "akan.compaction.before-the-turn",
}


def show(kind: str, fields: dict[str, Any]) -> None:
    """An observer: one readable line per event worth reading, with the rule it shows."""
    key = f"{kind}:{fields['trigger']}" if kind == "compaction" else kind
    if kind == "tool_result" and '"error"' in fields["content"]:
        key = "tool_result:refused"
    if kind == "attachment_added":
        line = f"  paperclip  {fields['name']} admitted as {fields['kind']} ({fields['size']:,} bytes)"
    elif kind == "attachment_refused":
        line = f"  paperclip  {fields['text']}"
    elif kind == "relay" and fields.get("tool_calls"):
        line = f"  relay      turn {fields['turn']}: the model asks for {', '.join(fields['tool_calls'])}"
    elif kind == "tool_call":
        line = f"  tool       {fields['name']}({json.dumps(fields['arguments'])})"
    elif kind == "tool_result":
        line = f"  result     {fields['content']}"
    elif kind == "compaction":
        line = (f"  compaction {fields['outcome']}: {fields.get('summarized', 0)} messages summarized, "
                f"{fields.get('kept', 0)} kept, estimate {fields.get('estimate_before')} -> "
                f"{fields.get('estimate_after')} tokens")
    else:
        return
    print(f"{line:<78} [{RULES[key]}]" if key in RULES else line)


def main() -> None:
    recorder = Recorder()
    session = ChatSession(PAGE, ScriptedProvider(MODEL, recorder), recorder=recorder, observers=[show])

    print("you        (attaches a photo of the damage and the receipt)")
    for file in (File("damage.jpg", "image/jpeg", size=2_400_000), File("receipt.txt", text="Blender 49.90")):
        session.attach(file)
    for text in ("The blender arrived broken. Please refund order 7.", "/compact",
                 "Thanks! When will the money arrive?"):
        print(f"you        {text}")
        result = session.send(text)
        if result.reply is not None:
            print(f"assistant  {result.reply}")

    state = session.state()
    unreadable = [
        part["text"] for event in recorder.events if event["type"] == "model_request"
        for message in event.get("provider_messages", []) if isinstance(message["content"], list)
        for part in message["content"][1:] if part["type"] == "text" and "cannot read" in part["text"]
    ]
    print()
    print(f"the provider was told instead of the photo: {unreadable[0]}  [akan.attachments.unreadable-note]")
    roles = [m["role"] + (" (summary)" if m.get("summary") else "") for m in state.transcript]
    print(f"transcript now: {roles}")
    print(f"refunds issued by the page: {REFUNDS}")


if __name__ == "__main__":
    main()
