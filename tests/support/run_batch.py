"""``vllm run-batch`` played by the local `LLMServer`, for tests of ``--batch files``.

vLLM's ``run-batch`` reads an OpenAI batch-format request file and writes one result line per request,
answered or not, in OpenAI's batch output shape ``{id, custom_id, response: {status_code, request_id,
body}, error}`` (errors go in the same file). Here each request line is answered as the server answers
``/v1/chat/completions`` (its queue of scripted behaviours, then its responder):

```python
run_batch(server, shard, shard.with_name("out.jsonl"))   # as: vllm run-batch -i shard -o out --model m
```
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from tests.support.llm_server import LLMServer

__all__ = ["run_batch"]

_ids = itertools.count(1)


def run_batch(server: LLMServer, input_path: Path, output_path: Path) -> int:
    """Answer every request line of ``input_path`` through ``server``, writing the results to
    ``output_path`` as ``vllm run-batch -i input_path -o output_path`` does; how many lines."""
    results = []
    for line in input_path.read_text(encoding="utf-8").splitlines():
        request = json.loads(line)
        status, body = server.answer("openai", request["body"], request["url"])
        number = next(_ids)
        response = {"status_code": status, "request_id": f"vllm-batch-{number}", "body": body}
        error = None if status == 200 else {"code": str(status), "message": f"the server answered {status}"}
        results.append(
            {"id": f"vllm-{number}", "custom_id": request["custom_id"], "response": response, "error": error}
        )
    output_path.write_text("".join(json.dumps(r) + "\n" for r in results), encoding="utf-8")
    return len(results)
