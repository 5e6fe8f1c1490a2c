"""The four roles of the research graph, one module each."""

from enum import StrEnum


class Node(StrEnum):
    SUPERVISOR = "supervisor"
    PLAN_REVIEW = "plan_review"  # optional pause for the user to edit the plan
    RESEARCHER = "researcher"
    ANALYST = "analyst"
    FOLLOW_UP = "follow_up"
    WRITER = "writer"
    CLAIM_CHECK = "claim_check"  # every cited sentence against its source's stored text
    REVIEWER = "reviewer"  # bounded review of the whole draft: new versions with reasons
