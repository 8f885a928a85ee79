"""HTMX pages of chat memory: /profile/facts/ and /profile/chat-preview/ (built by the pages work)."""

from django.http import HttpResponse

from memorysite.pages import trader_required


@trader_required
def profile_facts(request):
    return HttpResponse("todo")


@trader_required
def chat_preview(request):
    return HttpResponse("todo")
