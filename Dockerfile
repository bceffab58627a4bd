# The quizsvc image used by docker-compose.yml (migrate and app services).
# Installed in editable mode from /app so that alembic.ini, migrations/ and question_bank/
# are found next to the package, as in a checkout.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY quizsvc ./quizsvc
COPY migrations ./migrations
COPY question_bank ./question_bank
RUN pip install --no-cache-dir -e .
EXPOSE 8000
CMD ["quizsvc", "serve", "--host", "0.0.0.0", "--port", "8000"]
