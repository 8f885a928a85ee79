from django.urls import path

from signals import api, views

api_urlpatterns = [
    path("signals/", api.SignalCreateView.as_view(), name="api-signals"),
    path("markets/", api.MarketListView.as_view(), name="api-markets"),
    path("markets/<int:market_id>/memory/", api.MarketMemoryView.as_view(), name="api-market-memory"),
    path("markets/<int:market_id>/evolution/", api.MarketEvolutionView.as_view(), name="api-market-evolution"),
]

page_urlpatterns = [
    path("markets/", views.market_list, name="markets"),
    path("markets/<int:market_id>/", views.market_detail, name="market"),
]
