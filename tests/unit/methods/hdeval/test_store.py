"""Saving and loading aggregators: exact round trips, and refusal of anything not allowlisted."""

from __future__ import annotations

import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from faceteval.errors import FacetevalError
from faceteval.workflows.hdeval._aggregators import AGGREGATORS, make_aggregator
from faceteval.workflows.hdeval._store import load_aggregator, save_aggregator


class Gadget:
    """A class of the test's own, which a loader must never construct."""

    def __init__(self) -> None:
        self.built = True


def _scores() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.integers(1, 6, size=(150, 8)).astype(np.float64)
    y = np.column_stack([x[:, :4].mean(axis=1), x[:, 2:].mean(axis=1)]) + rng.normal(scale=0.2, size=(150, 2))
    return x, y


@pytest.mark.parametrize("kind", AGGREGATORS)
@pytest.mark.parametrize("multi", [True, False])
def test_round_trip_predicts_identically(tmp_path: Path, kind: str, multi: bool) -> None:
    x, y = _scores()
    model = make_aggregator(kind, seed=1).fit(x, y if multi else y[:, 0])
    path = tmp_path / "aggregator.skops"
    save_aggregator(model, path)
    loaded = load_aggregator(path)
    assert type(loaded) is type(model)
    np.testing.assert_array_equal(loaded.predict(x), model.predict(x))
    assert [p.name for p in tmp_path.iterdir()] == ["aggregator.skops"]


def test_saving_replaces_an_existing_file(tmp_path: Path) -> None:
    x, y = _scores()
    path = tmp_path / "aggregator.skops"
    save_aggregator(make_aggregator("mean").fit(x, y), path)
    save_aggregator(make_aggregator("lr").fit(x, y), path)
    assert type(load_aggregator(path)).__name__ == "LinearRegression"


@pytest.mark.parametrize(
    ("payload", "refused"),
    [
        (Counter({"a": 1}), "collections.Counter"),
        ({"model": Gadget()}, f"{__name__}.Gadget"),
    ],
)
def test_a_file_with_a_disallowed_type_is_refused(tmp_path: Path, payload: object, refused: str) -> None:
    import skops.io

    path = tmp_path / "evil.skops"
    skops.io.dump(payload, path)
    with pytest.raises(FacetevalError, match="untrusted types") as caught:
        load_aggregator(path)
    assert str(path) in str(caught.value)
    assert refused in str(caught.value)


def test_refusal_constructs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import skops.io

    path = tmp_path / "evil.skops"
    skops.io.dump({"model": Gadget()}, path)
    monkeypatch.setattr(
        Gadget, "__setstate__", lambda self, state: pytest.fail("Gadget was built"), raising=False
    )
    monkeypatch.setattr(skops.io, "load", lambda *a, **k: pytest.fail("skops.io.load was called"))
    with pytest.raises(FacetevalError):
        load_aggregator(path)


def test_a_file_that_is_not_skops_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "aggregator.skops"
    path.write_bytes(b"\x80\x04K\x01.")
    with pytest.raises(FacetevalError, match="not a readable aggregator file"):
        load_aggregator(path)
    with pytest.raises(FacetevalError, match="not a readable aggregator file"):
        load_aggregator(tmp_path / "missing.skops")


def test_a_file_of_an_earlier_version_naming_the_old_module_loads(tmp_path: Path) -> None:
    x, y = _scores()
    model = make_aggregator("mean").fit(x, y)
    path = tmp_path / "aggregator.skops"
    save_aggregator(model, path)
    with zipfile.ZipFile(path) as archive:  # as faceteval wrote it before the method families moved
        entries = {item.filename: archive.read(item) for item in archive.infolist()}
    schema = entries["schema.json"].decode()
    assert '"faceteval.workflows.hdeval._aggregators"' in schema
    entries["schema.json"] = schema.replace("faceteval.methods.hdeval.", "faceteval.hdeval.").encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    loaded = load_aggregator(path)
    assert type(loaded) is type(model)
    np.testing.assert_array_equal(loaded.predict(x), model.predict(x))
