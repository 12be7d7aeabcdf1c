"""Warming the openai SDK in the zygote, once, so that no instance forked from it pays for it.

The SDK defers much of its work to its first use: it imports the sessions resources and their types
lazily (some 750 modules), builds its models' pydantic schemas on first validation, parametrises its
page models (``SyncCursorPage[Session]``) at the first listing, builds a ``TypeAdapter`` for each
union of types the first time an answer has one, reads the type hints of the parameters it sends
(``TypedDict``s), and asks ``uname -p`` in a subprocess for the platform header of its first
request. A forked instance that did all of that again would pay for it at every fork (a
crash-point sweep forks one per point): measured, a baseline run's instance took 94 ms of CPU
when it did that work itself, 81 ms when the zygote had done it.

So the zygote does it once (``warm_sdk``): it imports the lazily loaded modules, builds the models
of the beta API (``openai.types.beta``: the agents, their sessions and environments; the models of
the other APIs, which the simulated world does not serve, keep their deferred build) and the
adapters of the unions in their fields, reads the parameters' type hints, and then calls every
method of ``client.beta.agents`` (sessions, environments and the rest, sub-resources included) once
against a canned transport that answers each with the smallest plausible body (a list of one item,
a stream of one event, an object). What the calls leave in the SDK's and pydantic's caches is inherited by
every fork; the page models, which pydantic keeps only weakly, are held here.

It deliberately touches nothing of a candidate's: the calls go to a transport of its own (never a
socket), with a key that is not one, and nothing of the run exists yet in the zygote. A method that
cannot be called this way (it needs a real object, or the SDK changed) is skipped: its first use in
an instance is then as slow as it was, never wrong.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import sys
from collections.abc import Callable, Iterator
from typing import Any, get_args, get_origin

__all__ = ["warm_sdk"]

_LAZY_PACKAGES = ("openai.resources.beta.agents", "openai.types.beta.agents", "openai.lib.beta.agents",
                  "openai.lib.streaming.agents")
_ITEM = {"id": "warm", "object": "warm", "type": "warm"}
_SKIP = ("with_raw_response", "with_streaming_response")
_MAX_CALLS = 200  # a bound on the exercise, whatever the SDK grows to

# What the exercise made that pydantic holds only weakly (parametrised page models): kept for the
# zygote's life, so that the forks find them in pydantic's cache.
_KEPT: set[type] = set()


def warm_sdk() -> None:
    """Import the SDK's lazily loaded parts, build their models, and exercise the agents API once."""
    import openai

    client = openai.OpenAI(api_key="unused", base_url="http://127.0.0.1:9/v1", max_retries=0)
    client.webhooks  # noqa: B018  (the access loads the module)
    for package in _LAZY_PACKAGES:
        try:
            module = importlib.import_module(package)
        except ImportError:  # another SDK version: what cannot be warmed is loaded by the instance
            continue
        for info in pkgutil.walk_packages(module.__path__, package + "."):
            importlib.import_module(info.name)
    _build_models("openai.types.beta")
    _union_adapters("openai.types.beta")
    _param_hints("openai.types.beta")
    client.close()
    _exercise()


def _defined_in(package: str, wanted: Callable[[Any], bool]) -> Iterator[Any]:
    """The values of the loaded modules of ``package`` that ``wanted`` takes, each where it is defined."""
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(package):
            continue
        for value in list(vars(module).values()):
            if getattr(value, "__module__", None) == name and wanted(value):
                yield value


def _models_of(package: str) -> Iterator[Any]:
    """The SDK's models defined in the loaded modules of ``package``."""
    from openai import BaseModel

    return _defined_in(package, lambda v: inspect.isclass(v) and issubclass(v, BaseModel))


def _build_models(package: str) -> None:
    """The SDK's models defer their pydantic schemas to their first use: build those loaded now."""
    for model in _models_of(package):
        try:
            model.model_rebuild(force=True)
        except Exception:  # a model that cannot be built before its first use: it is built then
            continue


def _union_adapters(package: str) -> None:
    """The SDK makes (and caches) a pydantic ``TypeAdapter`` for each union it meets in an answer,
    at the first answer that has one (a session's ``environment``, an item of a list): make those
    of every field of the models of ``package`` now, as its ``construct_type`` would ask for them."""
    from openai import _models

    adapter = getattr(_models, "_CachedTypeAdapter")  # the SDK's own cache of them (typed as an adapter)
    for model in _models_of(package):
        for field in getattr(model, "model_fields", {}).values():
            for union in _unions(_models, field.annotation, getattr(field, "metadata", None)):
                try:
                    adapter(union)
                except Exception:  # a union pydantic cannot adapt yet: the instance tries it
                    continue


def _unions(sdk: Any, type_: Any, metadata: Any = None, depth: int = 0) -> Iterator[Any]:
    """The unions ``construct_type`` of the SDK (``sdk``: its ``_models``) validates for a value of
    ``type_``: the type itself where it is one, and those in its variants, lists and dicts."""
    if type_ is None or depth > 8:
        return
    original = None
    if sdk.is_type_alias_type(type_):
        original, type_ = type_, type_.__value__
    if not metadata and sdk.is_annotated_type(type_):
        type_ = sdk.extract_type_arg(type_, 0)
    origin = get_origin(type_) or type_
    args = get_args(type_)
    if sdk.is_union(origin):
        yield original or type_
        for variant in args:
            yield from _unions(sdk, variant, None, depth + 1)
    elif origin is dict and len(args) > 1:
        yield from _unions(sdk, args[1], None, depth + 1)
    elif origin is list and args:
        yield from _unions(sdk, args[0], None, depth + 1)


def _param_hints(package: str) -> None:
    """The SDK reads the type hints of a request's parameters (``TypedDict``s, their forward
    references evaluated) at the first request that sends one, and caches them: read them now."""
    from openai._utils._transform import get_type_hints
    from typing_extensions import is_typeddict

    for params in _defined_in(package, is_typeddict):
        try:
            get_type_hints(params, include_extras=True)
        except Exception:  # a hint that cannot be resolved yet: the instance resolves it
            continue


def _answer(request: Any) -> Any:
    """The canned answer to any request of the exercise: a stream of one event, a page of one item,
    or one object."""
    import httpx

    if "text/event-stream" in request.headers.get("accept", ""):
        body = b"event: warm\ndata: " + json.dumps(_ITEM).encode() + b"\n\n"
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    if request.method == "GET":
        return httpx.Response(200, json={"object": "list", "data": [_ITEM], "has_more": False,
                                         "first_id": "warm", "last_id": "warm"})
    return httpx.Response(200, json=_ITEM)


def _exercise() -> None:
    """Every method of the agents resources, called once on the canned transport, its answer read
    to the end (pages iterated, streams consumed)."""
    import httpx
    import openai
    from openai._resource import SyncAPIResource

    http = httpx.Client(transport=httpx.MockTransport(_answer))
    client = openai.OpenAI(api_key="unused", base_url="http://127.0.0.1:9/v1", max_retries=0,
                           webhook_secret="unused", http_client=http)  # type: ignore[arg-type]
    calls = 0
    try:
        for method in _methods(client.beta.agents, SyncAPIResource, set()):
            if calls >= _MAX_CALLS:
                break
            calls += 1
            _call(method)
    finally:
        client.close()
        http.close()


def _methods(resource: Any, kind: type, seen: set[int]) -> Iterator[Any]:
    """The public methods of ``resource`` and of its sub-resources, depth first, each resource once."""
    for name in dir(resource):
        if name.startswith("_") or name in _SKIP:
            continue
        try:
            value = getattr(resource, name)
        except Exception:
            continue
        if isinstance(value, kind):
            if id(value) not in seen:
                seen.add(id(value))
                yield from _methods(value, kind, seen)
        elif callable(value):
            yield value


def _call(method: Any) -> None:
    """``method`` with a placeholder for each required argument; what it returns read to the end
    (inside a ``with`` block where it is a context manager, as the SDK's stream helpers require).
    Any failure is the exercise's (a method that needs a real object): it is skipped."""
    try:
        parameters = inspect.signature(method).parameters.values()
        args = {p.name: "warm" for p in parameters
                if p.default is p.empty and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
        value = method(**args)
        if hasattr(value, "__enter__"):
            with value as entered:
                _drain(entered)
        else:
            _drain(value)
    except Exception:
        return


def _drain(value: Any) -> None:
    _KEPT.add(type(value))
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        return
    for n, element in enumerate(value):
        _KEPT.add(type(element))
        if n >= 10:
            break
