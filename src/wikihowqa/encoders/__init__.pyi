from .embed import Encoding as Encoding
from .embed import default_model_path as default_model_path
from .embed import load_model as load_model
from .embed import question_embeddings as question_embeddings
from .openvino_encoder import OpenVINOEncoder as OpenVINOEncoder
