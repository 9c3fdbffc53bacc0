"""The table layout and the conversions between rows and :class:`MemoryRecord`.

Every record field is its own column so filters compile to plain SQL on
columns: scope ids and other strings as ``string``, categories as
``list<string>``, dates as UTC microsecond timestamps (what Python datetimes
hold, so a round trip is lossless), metadata as compact JSON text (the one
free-form field), and the vector as a fixed-size float32 list whose size is
the embedder's dimension.

The whole record is also kept *packed* in one more column (a JSON array of
the fields, dates as epoch microseconds), which is what reads select: LanceDB
reads each selected column of each row separately, so 18 columns cost 18
random reads per row (20 ms for 10 rows at 1M rows) where the packed column
costs one (2 ms). Tables created before the packed column existed are read
column by column.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, overload

import numpy as np
import pyarrow as pa
from memorist.plugin_api import MemoryRecord
from pydantic_core import to_jsonable_python

from .sql import metadata_json

VECTOR = "vector"
PACKED = "packed"
TIMESTAMP = pa.timestamp("us", tz="UTC")

#: Record fields in column order, with their Arrow types and nullability.
_FIELDS: tuple[tuple[str, pa.DataType, bool], ...] = (
    ("id", pa.string(), False),
    ("text", pa.string(), False),
    ("hash", pa.string(), False),
    ("org_id", pa.string(), False),
    ("project_id", pa.string(), False),
    ("user_id", pa.string(), True),
    ("agent_id", pa.string(), True),
    ("run_id", pa.string(), True),
    ("app_id", pa.string(), True),
    ("categories", pa.list_(pa.string()), False),
    ("metadata", pa.string(), False),
    ("attributed_to", pa.string(), True),
    ("speaker", pa.string(), True),
    ("source_message", pa.int64(), True),
    ("observed_at", TIMESTAMP, False),
    ("created_at", TIMESTAMP, False),
    ("updated_at", TIMESTAMP, False),
    ("expires_at", TIMESTAMP, True),
)
#: Columns read back to build records (everything but the vector).
RECORD_COLUMNS: list[str] = [name for name, _, _ in _FIELDS]
_DATE_COLUMNS = frozenset(["observed_at", "created_at", "updated_at", "expires_at"])


def table_schema(dimension: int, packed: bool = True) -> pa.Schema:
    """The Arrow schema of a store whose vectors have ``dimension`` components (without
    the packed column: the layout of tables created before it)."""
    fields = [pa.field(name, dtype, nullable=nullable) for name, dtype, nullable in _FIELDS]
    if packed:
        fields.append(pa.field(PACKED, pa.string(), nullable=False))
    fields.append(pa.field(VECTOR, pa.list_(pa.float32(), dimension), nullable=False))
    return pa.schema(fields)


def stored_dimension(schema: pa.Schema) -> int | None:
    """The vector size an existing table was created with, from its schema."""
    if VECTOR not in schema.names:
        return None
    dtype = schema.field(VECTOR).type
    return int(dtype.list_size) if pa.types.is_fixed_size_list(dtype) else None


def missing_columns(schema: pa.Schema) -> list[str]:
    return [name for name in RECORD_COLUMNS if name not in schema.names]


@overload
def as_utc(value: datetime) -> datetime: ...


@overload
def as_utc(value: None) -> None: ...


def as_utc(value: datetime | None) -> datetime | None:
    """Aware UTC; a naive datetime is taken to be UTC already (what ``utcnow`` makes)."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def to_arrow(records: Sequence[MemoryRecord], vectors: np.ndarray, dimension: int, packed: bool = True) -> pa.Table:
    """Rows for ``records`` with ``vectors`` (shape ``(len(records), dimension)``)."""
    columns: dict[str, list[Any]] = {name: [] for name in RECORD_COLUMNS}
    packs: list[str] = []
    for record in records:
        metadata = to_jsonable_python(record.metadata)
        for name in RECORD_COLUMNS:
            value = getattr(record, name)
            if name in _DATE_COLUMNS:
                value = as_utc(value)
            elif name == "metadata":
                value = metadata_json(metadata)
            elif name == "categories":
                value = list(value)
            columns[name].append(value)
        if packed:
            packs.append(_pack(record, metadata))
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1))
    arrays = [pa.array(columns[name], type=dtype) for name, dtype, _ in _FIELDS]
    if packed:
        arrays.append(pa.array(packs, type=pa.string()))
    arrays.append(pa.FixedSizeListArray.from_arrays(flat, dimension))
    return pa.Table.from_arrays(arrays, schema=table_schema(dimension, packed))


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def _pack(record: MemoryRecord, metadata: Any) -> str:
    """The record as a JSON array in ``RECORD_COLUMNS`` order, dates as epoch microseconds."""
    values: list[Any] = []
    for name in RECORD_COLUMNS:
        value = getattr(record, name)
        if name in _DATE_COLUMNS:
            moment = as_utc(value)
            value = None if moment is None else (moment - _EPOCH) // _MICROSECOND
        elif name == "metadata":
            value = metadata
        elif name == "categories":
            value = list(value)
        values.append(value)
    return json.dumps(values, ensure_ascii=False, separators=(",", ":"))


def pack_record(record: MemoryRecord) -> str:
    """The record as its packed column holds it (what the write-behind journal stores)."""
    return _pack(record, to_jsonable_python(record.metadata))


def unpack_record(packed: str) -> MemoryRecord:
    """A record from its packed form."""
    return _unpack(packed)


def _unpack(packed: str) -> MemoryRecord:
    values = dict(zip(RECORD_COLUMNS, json.loads(packed), strict=True))
    for name in _DATE_COLUMNS:
        if values[name] is not None:
            values[name] = _EPOCH + values[name] * _MICROSECOND
    # Rows were validated when written; construct without re-validating (hot path of search).
    return MemoryRecord.model_construct(**values)


def _record(values: dict[str, Any]) -> MemoryRecord:
    for name in _DATE_COLUMNS:
        values[name] = as_utc(values[name])
    values["metadata"] = json.loads(values["metadata"]) if values["metadata"] else {}
    values["categories"] = list(values["categories"] or [])
    # Rows were validated when written; construct without re-validating (hot path of search).
    return MemoryRecord.model_construct(**values)


def from_arrow(table: pa.Table) -> list[MemoryRecord]:
    """Records from an Arrow table: its packed column, else its record columns one by one.

    Why columns: ``Table.to_pylist`` builds one dict per row with every
    column (the vector's 384 floats too, when selected); converting only the
    record columns, each in one call, is about twice as fast, and search
    converts a few hundred rows per query.
    """
    if PACKED in table.column_names:
        return [_unpack(packed) for packed in table.column(PACKED).to_pylist()]
    columns = [table.column(name).to_pylist() for name in RECORD_COLUMNS]
    return [_record(dict(zip(RECORD_COLUMNS, row, strict=True))) for row in zip(*columns, strict=True)]


def vectors_of(table: pa.Table, dimension: int) -> np.ndarray:
    """The vector column as a ``(rows, dimension)`` float32 matrix (no per-row Python objects)."""
    flat = table.column(VECTOR).combine_chunks().flatten().to_numpy(zero_copy_only=False)
    return np.asarray(flat, dtype=np.float32).reshape(-1, dimension)
