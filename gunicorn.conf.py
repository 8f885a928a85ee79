# gunicorn reads this file from its working directory (the repository; /app in the image) whatever
# started it: `make run`'s launcher, the Dockerfile and docker-compose, tests and benchmarks.
# The threaded worker, with a deadline on every client (CLIENT_TIMEOUT_S): memorysite/serving.py.
worker_class = "memorysite.serving.BoundedThreadWorker"


def child_exit(server, worker):
    """prometheus-client's multiprocess mode: a dead worker's live gauges stop counting (its counters stay)."""
    import os

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
