from django.urls import path

from reflection import api, views

api_urlpatterns = [
    path("deployments/<int:deployment_id>/lessons/", api.DeploymentLessonsView.as_view(), name="api-lessons"),
    path("skills/<int:skill_id>/lessons-ab/", api.LessonsABView.as_view(), name="api-lessons-ab"),
]

page_urlpatterns = [
    path("skills/<int:skill_id>/lessons/", views.skill_lessons, name="skill-lessons"),
    path("skills/<int:skill_id>/lessons/verdict/", views.skill_lesson_verdict, name="skill-lesson-verdict"),
]
