"""``continue`` as MediaWiki's ``ApiContinuationManager`` computes it: module skip lists, ``batchcomplete``,
``"-||"`` once a generator is done (API:Continue)."""

from __future__ import annotations

from dataclasses import dataclass, field

from wikihowqa.replay.action_api.request import BADCONTINUE, ApiError, Request


@dataclass
class Continuation:
    modules: list[str]
    props: list[str]
    skip: set[str]
    generator_done: bool
    generator_params: dict[str, str]
    data: dict[str, dict[str, str | int]] = field(default_factory=dict)
    generator_data: dict[str, str | int] = field(default_factory=dict)

    def add(self, module: str, key: str, value: str | int) -> None:
        self.data.setdefault(module, {})[key] = value

    def result(self) -> tuple[dict[str, str | int], bool]:
        """MediaWiki's ``ApiContinuationManager::getContinuation``, reimplemented."""
        finished = [m for m in self.modules if m not in self.data]
        data: dict[str, str | int] = {}
        for module, kvp in self.data.items():
            if module not in self.props:
                for k, v in kvp.items():
                    data.setdefault(k, v)
        prop_data = {m: kvp for m, kvp in self.data.items() if m in self.props}
        batchcomplete = False
        if prop_data:
            for kvp in prop_data.values():
                for k, v in kvp.items():
                    data.setdefault(k, v)
            for k, v in self.generator_params.items():
                data.setdefault(k, v)
            generator_keys = "|".join(self.generator_params)
        elif self.generator_data:
            for k, v in self.generator_data.items():
                data.setdefault(k, v)
            finished = [m for m in finished if m not in self.props]
            generator_keys = "|".join(self.generator_data)
            batchcomplete = True
        else:
            generator_keys = "-"
            batchcomplete = True
        if data or generator_keys != "-":
            data["continue"] = generator_keys + "||" + "|".join(finished)
        return data, batchcomplete


def init_continue(req: Request, props: list[str], modules: list[str]) -> Continuation:
    """The continuation a request resumes: which modules are done, and the generator's own parameters."""
    raw = req.get("continue", "")
    skip: set[str] = set()
    done = False
    gen_params: dict[str, str] = {}
    if raw:
        parts = raw.split("||")
        if len(parts) != 2:
            raise ApiError("badcontinue", BADCONTINUE)
        done = parts[0] == "-"
        skip = {s for s in parts[1].split("|") if s}
        if done:
            skip |= set(props)
        elif parts[0]:
            gen_params = {k: req.params[k] for k in parts[0].split("|") if k in req.params}
    seen: list[str] = []
    for m in modules:
        if m not in seen:
            seen.append(m)
    return Continuation(seen, props, skip, done, gen_params)
