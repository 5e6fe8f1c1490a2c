"""The four roles of the research graph, one module each."""

from enum import StrEnum


class Node(StrEnum):
    SUPERVISOR = "supervisor"
    RESEARCHER = "researcher"
    ANALYST = "analyst"
    FOLLOW_UP = "follow_up"
    WRITER = "writer"
