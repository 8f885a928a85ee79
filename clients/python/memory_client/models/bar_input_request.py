from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="BarInputRequest")


@_attrs_define
class BarInputRequest:
    """
    Attributes:
        t (Any): The bar's open time: an ISO 8601 string or epoch milliseconds, as the runner's feed has it.
        o (float): Open price, USD.
        h (float): High price, USD.
        l (float): Low price, USD.
        c (float): Close price, USD.
        v (float): Volume in base units; >= 0.
    """

    t: Any
    o: float
    h: float
    l: float
    c: float
    v: float

    def to_dict(self) -> dict[str, Any]:
        t = self.t

        o = self.o

        h = self.h

        l = self.l

        c = self.c

        v = self.v

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "t": t,
                "o": o,
                "h": h,
                "l": l,
                "c": c,
                "v": v,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        t = d.pop("t")

        o = d.pop("o")

        h = d.pop("h")

        l = d.pop("l")

        c = d.pop("c")

        v = d.pop("v")

        bar_input_request = cls(
            t=t,
            o=o,
            h=h,
            l=l,
            c=c,
            v=v,
        )

        return bar_input_request
