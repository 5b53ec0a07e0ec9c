"""The registered methods' options as flags of ``judge`` and ``meta-eval``, and ``-M key=value``.

Each flag is every method's option of that flag (``--aggregate`` is dna's and fennec's): its type
and choices are theirs, its help is each method's, and given for another method it is refused. ``-M``
sets any option of the chosen method by its parameter name, those without a flag of their own too.
In ``meta-eval`` a sweepable option's flag takes a list (``--aspects 1,2,3``), one run per value.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from faceteval._cli._numbers import FiniteFloat
from faceteval.methods import Method, MethodOption, MethodSpec, method_spec, method_specs

ParamType = click.ParamType
"""What reads a flag's value."""

logger = logging.getLogger(__name__)

METHOD_ARGS = "method_args"
"""The parameter name of ``-M``."""


@dataclass(frozen=True, slots=True)
class MethodFlag:
    """A flag, and every method's option it sets."""

    flag: str
    owners: tuple[tuple[MethodSpec, MethodOption], ...]

    @property
    def name(self) -> str:
        """Its click parameter name: ``--criteria-count`` -> ``criteria_count``."""
        return self.flag[2:].replace("-", "_")

    @property
    def methods(self) -> str:
        """The methods it applies to, as a usage error names them: ``dna or fennec``."""
        return " or ".join(spec.name for spec, _ in self.owners)

    def option_of(self, spec: MethodSpec) -> MethodOption | None:
        """``spec``'s option of this flag, if it has one."""
        return next((option for owner, option in self.owners if owner is spec), None)

    @property
    def sweeps(self) -> bool:
        """Whether some method sweeps it (``meta-eval`` then takes a list)."""
        return any(option.sweep is not None for _, option in self.owners)


def method_flags() -> list[MethodFlag]:
    """Every flag of the registered methods' options, in the order the methods and options come.

    A plugin's option whose flag another method gives another type is left out (with a warning);
    ``-M`` still sets it.
    """
    flags: dict[str, list[tuple[MethodSpec, MethodOption]]] = {}
    for spec in method_specs():
        for option in spec.options:
            if option.flag is None:
                continue
            owners = flags.setdefault(option.flag, [])
            if owners and owners[0][1].type is not option.type:
                what = (option.flag, spec.name, option.type.__name__, owners[0][0].name, option.param)
                logger.warning("%s of method %s is a %s, as %s's is not: set it with -M %s=VALUE", *what)
                continue
            owners.append((spec, option))
    return [MethodFlag(flag, tuple(owners)) for flag, owners in flags.items()]


def add_method_options(command: click.Command, *, after: str, sweeps: bool) -> None:
    """Insert the methods' flags and ``-M`` into ``command``'s options, after its option ``after``.

    With ``sweeps``, a sweepable option's flag takes a comma-separated list (``meta-eval``). A flag
    the command has already (a plugin's ``--out``, say) is left out, with a warning.
    """
    taken = {opt for param in command.params for opt in param.opts} | {p.name for p in command.params}
    options: list[click.Parameter] = []
    for flag in method_flags():
        if flag.flag in taken or flag.name in taken:
            logger.warning(
                "%s (of %s) is %s's own option: set it with -M", flag.flag, flag.methods, command.name
            )
            continue
        options.append(_list_option(flag) if sweeps and flag.sweeps else _option(flag))
    options.append(
        click.Option(
            ["-M", "--method-arg", METHOD_ARGS],
            multiple=True,
            metavar="KEY=VALUE",
            help="Set an option of the --method by its name (repeatable), including those without a flag "
            "of their own: -M aspects=5, -M task=...",
        )
    )
    index = next(i for i, param in enumerate(command.params) if param.name == after) + 1
    command.params[index:index] = options


def _option(flag: MethodFlag) -> click.Option:
    first = flag.owners[0][1]
    defaults = {option.default for _, option in flag.owners}
    default = next(iter(defaults)) if len(defaults) == 1 else None
    if first.type is bool:
        decls = [flag.flag if not default else f"{flag.flag}/--no-{flag.flag[2:]}", flag.name]
        return click.Option(decls, is_flag=True, default=bool(default), help=_help(flag))
    return click.Option(
        [flag.flag, flag.name],
        type=_click_type(flag),
        default=default,
        show_default=default is not None,
        help=_help(flag),
    )


def _list_option(flag: MethodFlag) -> click.Option:
    sweeps = [(spec, option) for spec, option in flag.owners if option.sweep is not None]
    defaults = {option.default for _, option in sweeps}
    parts = [f"{spec.name}: {option.sweep.help}" for spec, option in sweeps if option.sweep is not None]
    metavar = next(option.sweep.metavar for _, option in sweeps if option.sweep is not None)
    return click.Option(
        [flag.flag, flag.name],
        default=str(next(iter(defaults))) if len(defaults) == 1 else None,
        show_default=True,
        metavar=metavar,
        help=" ".join([*_lead(flag), *parts]),
    )


def _help(flag: MethodFlag) -> str:
    return " ".join([*_lead(flag), *(f"{spec.name}: {option.help}" for spec, option in flag.owners)])


def _lead(flag: MethodFlag) -> list[str]:
    leads = {option.lead for _, option in flag.owners}
    return [next(iter(leads))] if len(flag.owners) > 1 and len(leads) == 1 and "" not in leads else []


def _click_type(flag: MethodFlag) -> ParamType:
    first = flag.owners[0][1]
    if first.choices:
        return click.Choice(sorted({choice for _, option in flag.owners for choice in option.choices}))
    return option_type(first)


def option_type(option: MethodOption) -> ParamType:
    """What reads a value of ``option`` from the command line."""
    if option.choices:
        return click.Choice(option.choices)
    if option.type is bool:
        return click.BOOL
    if option.type is int:
        low, high = option.minimum, option.maximum
        if low is None and high is None:
            return click.INT
        return click.IntRange(None if low is None else int(low), None if high is None else int(high))
    if option.type is float:
        if option.minimum is None and option.maximum is None:
            return FiniteFloat()
        return FiniteFloat(option.minimum, option.maximum)
    return click.STRING


def given(ctx: click.Context, name: str) -> bool:
    """Whether the parameter ``name`` was given on the command line."""
    return ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE


def check_method_flags(ctx: click.Context, method: str) -> None:
    """Refuse method flags given on the command line for a method they do not apply to."""
    spec = method_spec(method)
    flags = [flag for flag in method_flags() if flag.name in ctx.params]
    for flag in flags:
        if flag.option_of(spec) is None and given(ctx, flag.name):
            raise click.UsageError(f"{flag.flag} only applies to --method {flag.methods}")
    for flag in flags:
        value, option = ctx.params[flag.name], flag.option_of(spec)
        if option is not None and option.choices and value is not None and value not in option.choices:
            choices = ", ".join(option.choices)
            raise click.UsageError(
                f"{flag.flag} {value} does not apply to --method {method} (choose {choices})"
            )
    if given(ctx, "criteria_path"):
        if spec.criteria is None:
            raise click.UsageError(f"--criteria does not apply to --method {method} (it names no criteria)")
        counts = [flag.flag for flag in flags if given(ctx, flag.name) and _counts(flag)]
        counts += [f"-M {key}" for key in method_args(ctx, spec) if _counts_param(spec, key)]
        if counts:
            raise click.UsageError(
                f"{counts[0]} sets how many criteria to generate, but --criteria gives every instance its own"
            )


def _counts(flag: MethodFlag) -> bool:
    return any(option.counts_criteria for _, option in flag.owners)


def _counts_param(spec: MethodSpec, param: str) -> bool:
    option = spec.option(param)
    return option is not None and option.counts_criteria


def method_args(ctx: click.Context, spec: MethodSpec) -> dict[str, str]:
    """``-M key=value`` as given: each key an option of ``spec``'s, given once, and not by its flag too.

    Raises:
        click.UsageError: Anything else.
    """
    out: dict[str, str] = {}
    for text in ctx.params.get(METHOD_ARGS) or ():
        key, is_set, value = text.partition("=")
        key = key.strip()
        option = spec.option(key)
        if not is_set or not key:
            raise click.UsageError(f"-M {text}: give KEY=VALUE, such as -M aspects=5")
        if option is None:
            known = ", ".join(o.param for o in spec.options) or "none"
            raise click.UsageError(
                f"-M {key}: --method {spec.name} has no option {key!r} (its options: {known})"
            )
        if key in out:
            raise click.UsageError(f"-M {key} is given twice")
        if option.flag is not None and given(ctx, option.flag[2:].replace("-", "_")):
            raise click.UsageError(f"-M {key} and {option.flag} both set {key}: give one")
        out[key] = value
    return out


def method_params(ctx: click.Context, spec: MethodSpec, *, leave_out: Sequence[str] = ()) -> dict[str, Any]:
    """The factory parameters of ``spec``'s options given by flags or ``-M`` (those not given are left to
    the factory), but for ``leave_out`` (a swept option's).

    Raises:
        click.UsageError: A ``-M`` value is not one the option takes.
    """
    args = method_args(ctx, spec)
    params: dict[str, Any] = {}
    for option in spec.options:
        if option.param in leave_out:
            continue
        value = None
        if option.param in args:
            value = _convert(option, args[option.param], ctx)
        elif option.flag is not None:
            value = ctx.params.get(option.flag[2:].replace("-", "_"))
            if isinstance(value, str) and option.type is not str:  # a list flag of another method's sweep
                value = _convert(option, value, ctx)
        if value is not None:
            params[option.param] = value
    return params


def _convert(option: MethodOption, text: str, ctx: click.Context) -> Any:
    try:
        return option_type(option).convert(text, None, ctx)
    except click.BadParameter as exc:
        raise click.UsageError(f"-M {option.param}={text}: {exc.message}") from None


def build_method(spec: MethodSpec, params: Mapping[str, Any], criteria_path: Path | None) -> Method:
    """``spec``'s method with ``params``, and what ``--criteria`` gives it when the flag names a file."""
    read = spec.criteria.read(criteria_path) if criteria_path is not None and spec.criteria else {}
    return spec.factory(**{**params, **read})
