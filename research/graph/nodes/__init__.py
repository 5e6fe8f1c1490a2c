"""The four roles of the research graph, one module each."""

from enum import StrEnum


class Node(StrEnum):
    SUPERVISOR = "supervisor"
    PLAN_REVIEW = "plan_review"  # optional pause for the user to edit the plan
    RESEARCHER = "researcher"
    ANALYST = "analyst"
    FOLLOW_UP = "follow_up"
    WRITER = "writer"
    # The run's first and last steps: run_started / run_finished come from inside the graph, so a
    # run on a server logs them as an in-process run does.
    BEGIN = "begin"
    FINISH = "finish"
    CLAIM_CHECK = "claim_check"  # every cited sentence against its source's stored text
    REVIEWER = "reviewer"  # bounded review of the whole draft: new versions with reasons
