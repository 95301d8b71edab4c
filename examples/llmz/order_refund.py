"""An order-refund worker on the llmz simulator: Python tools, a ThinkSignal, a retry, two exits.

Run it offline with ``python examples/llmz/order_refund.py``. The customer asks for a refund of a damaged
order. The model (here a small Python function standing in for a real one) looks the order up and asks
the refund desk, which answers with a ThinkSignal: one item was a final-sale item, so only part of the
order may be refunded, and the model must look before it acts. The payment gateway then times out once;
the model reads the recovery report and tries again, and the run ends through the ``refunded`` exit.

What is printed comes from the runtime's observer events; each line names the llmz rules (ids from
``spec/llmz/``) that the event shows at work.
"""

from __future__ import annotations

import json
from typing import Any

from reference.llmz import Exit, Options, Session, ThinkSignal, Tool, execute
from reference.providers import FunctionProvider, ModelResponse, ToolCall

ORDERS: dict[str, dict[str, Any]] = {
    "O-1042": {
        "customer": "Dana",
        "items": [
            {"sku": "LAMP-3", "price": 42.50, "final_sale": False},
            {"sku": "BULB-9", "price": 7.50, "final_sale": True},
        ],
    }
}
GATEWAY = {"calls": 0}


def get_order(query: dict[str, Any]) -> dict[str, Any]:
    return {"id": query["id"], **ORDERS[query["id"]]}


def check_refund(claim: dict[str, Any]) -> Any:
    """The refund desk: a partial refund needs the model's attention before it pays anything."""
    items = ORDERS[claim["order_id"]]["items"]
    eligible = sum(item["price"] for item in items if not item["final_sale"])
    excluded = [item["sku"] for item in items if item["final_sale"]]
    if excluded:
        reason = "partial refund only: final-sale items are excluded"
        return ThinkSignal(reason, {"eligible": eligible, "excluded": excluded})
    return {"eligible": eligible, "excluded": []}


def issue_refund(payment: dict[str, Any]) -> dict[str, Any]:
    GATEWAY["calls"] += 1
    if GATEWAY["calls"] == 1:
        raise TimeoutError("payment gateway timed out")
    return {"refund_id": "R-77", "amount": payment["amount"]}


AMOUNT = {"type": "object", "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}}}
ORDER_ID = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
TOOLS = [
    Tool("get_order", get_order, "Look an order up.", ORDER_ID),
    Tool("check_refund", check_refund, "Ask the refund desk what may be refunded."),
    Tool("issue_refund", issue_refund, "Pay a refund to the customer's card.", AMOUNT),
]
EXITS = [
    Exit("refunded", "The refund was paid.", {"type": "object", "required": ["refund_id", "amount"]}),
    Exit("declined", "Nothing may be refunded.", {"type": "object", "required": ["reason"]}),
]

LOOK_UP = """const order = await get_order({id: "O-1042"})
const desk = await check_refund({order_id: order.id, reason: "damaged"})"""
PAY = """const refund = await issue_refund({order_id: "O-1042", amount: desk.eligible})
return exit("refunded", refund)"""


def model(request: dict[str, Any], purpose: str) -> ModelResponse:
    """A stand-in for the model: it reads the latest report and writes the next program."""
    report = str(request["messages"][-1]["content"])
    code = LOOK_UP if "<tool_calls>" not in report else PAY
    print("\nmodel writes:\n    " + code.replace("\n", "\n    "))
    return ModelResponse(tool_calls=[ToolCall(code=code)])


RULES = {
    "signal": "llmz.think-signal.return-or-throw, llmz.think-signal.context-is-result",
    "tool_error": "llmz.errors.tool-execution-failed",
    "thinking_requested": "llmz.think-signal.forced-inspection-report",
    "recoverable_error": "llmz.error-recovery.recovery-section, llmz.errors.feedback-effects-accounting",
    "exit": "llmz.exits.result-is",
}


def short(value: Any, width: int = 60) -> str:
    text = json.dumps(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def narrate(kind: str, event: dict[str, Any]) -> None:
    """An observer: one readable line per event, with the rules it shows."""
    if kind == "tool_call":
        call = f"  tool {event['name']}({short(event['input'])})"
        if "signal" in event:
            print(f"{call} -> {short(event['output'])}")
            print(f"    ThinkSignal: {event['signal']['reason']}   [{RULES['signal']}]")
        elif "error" in event:
            error = event["error"]
            print(f"{call} -> {error['code']}: {error['message']}   [{RULES['tool_error']}]")
        else:
            print(f"{call} -> {short(event['output'])}")
    elif kind == "iteration":
        rules = RULES.get(event["status"])
        print(f"  iteration {event['index']}: {event['status']}" + (f"   [{rules}]" if rules else ""))
    elif kind == "exit":
        print(f"\nexit {event['name']} {event['payload']}   [{RULES['exit']}]")


def main() -> None:
    session = Session()
    request = "My lamp order O-1042 arrived broken. Please refund it."
    session.append([{"role": "user", "content": request}])
    print(f"customer: {request}")
    result = execute(
        session,
        FunctionProvider(model),
        instructions="You handle refunds for a home-goods shop.",
        tools=TOOLS,
        exits=EXITS,
        options=Options(loop=4),
        observers=[narrate],
    )
    iterations = len(result.iterations)
    print(f"result: {result.status} after {iterations} iterations; memory holds {sorted(result.memory)}")


if __name__ == "__main__":
    main()
