"""HTMX pages of reflection: a skill's lessons history with diffs and A/B figures."""

from django.http import HttpResponse

from memorysite.pages import trader_required


@trader_required
def skill_lessons(request, skill_id: int):
    return HttpResponse("todo")
