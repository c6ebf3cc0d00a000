"""The I/O side of the ports: AWS (S3, Bedrock, Textract) and OpenSearch."""
