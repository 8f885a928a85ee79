# gunicorn reads this file from its working directory (the repository; /app in the image) whatever
# started it: `make run`'s launcher, the Dockerfile and docker-compose, tests and benchmarks.
# The threaded worker, with a deadline on every client (CLIENT_TIMEOUT_S): memorysite/serving.py.
worker_class = "memorysite.serving.BoundedThreadWorker"
